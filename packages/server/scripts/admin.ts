/**
 * `npm run admin -- <command>`: the operator's commands on the service's database, with the same
 * variables as `npm start` (DATABASE_URL, else the embedded server under DATA_DIR — shared with a
 * service running on it, started for the command when none is).
 *
 *   reset-password   sets the seeded administrators' password: SEED_ADMIN_PASSWORD, or a new one
 *                    printed once; lifts a lock-out and ends their sessions
 */
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig } from '../src/config.ts';
import { DEMO_TENANT, type PasswordResetTarget, resetPasswords } from '../src/modules/identity/index.ts';
import { createCache } from '../src/platform/cache/cache.ts';
import { randomToken } from '../src/platform/crypto/digest.ts';
import { openDatabase } from '../src/platform/db/client.ts';
import { runMigrations } from '../src/platform/db/migrate.ts';
import { openServiceDatabase } from '../src/service-database.ts';

const USAGE = `usage: npm run admin -- reset-password [--username NAME] [--tenant CODE | --platform]
  Sets the password of the administrators the first start created: the platform's and the demo
  tenant's (both named SEED_ADMIN_USERNAME, default admin). The new password is SEED_ADMIN_PASSWORD
  when set, else one generated and printed once. Their lock-outs are lifted and their sessions end.
  --username NAME   another account of that name
  --tenant CODE     only the account in that tenant
  --platform        only the platform account`;

function usage(problem: string): never {
  console.error(`admin: ${problem}\n${USAGE}`);
  process.exit(64); // EX_USAGE
}

let parsed: ReturnType<typeof parse>;
function parse() {
  return parseArgs({
    allowPositionals: true,
    options: {
      username: { type: 'string' },
      tenant: { type: 'string' },
      platform: { type: 'boolean', default: false },
      help: { type: 'boolean', default: false },
    },
  });
}
try {
  parsed = parse();
} catch (err) {
  usage((err as Error).message);
}
const { values: args, positionals } = parsed;
if (args.help) {
  console.log(USAGE);
  process.exit(0);
}
if (positionals.length !== 1 || positionals[0] !== 'reset-password')
  usage(positionals.length ? `unknown command "${positionals.join(' ')}"` : 'which command?');
if (args.tenant !== undefined && args.platform) usage('--tenant and --platform exclude each other');
if (args.tenant !== undefined && !args.tenant.trim()) usage('--tenant needs a tenant code');

let config: ReturnType<typeof loadConfig>;
try {
  config = loadConfig(process.env);
} catch (err) {
  if (!(err instanceof ConfigError)) throw err;
  console.error(err.message);
  process.exit(78); // EX_CONFIG
}

const username = args.username ?? config.seedAdminUsername;
const targets: PasswordResetTarget[] = args.platform
  ? [{ tenantCode: null, username }]
  : args.tenant !== undefined
    ? [{ tenantCode: args.tenant.trim(), username }]
    : [
        { tenantCode: null, username },
        { tenantCode: DEMO_TENANT, username },
      ];
const password = config.seedAdminPassword ?? randomToken(12);

const store = await openServiceDatabase(config, { log: (line) => console.log(line), share: true });
let code = 0;
try {
  const database = await openDatabase({ url: store.url, kind: store.kind, poolMax: 2 });
  const cache = createCache({ redisUrl: config.redisUrl, prefix: config.redisKeyPrefix });
  try {
    await runMigrations(database);
    const results = await resetPasswords(
      { db: database.db, cache, config, clock: () => new Date() },
      targets,
      password,
    );
    const name = (r: PasswordResetTarget) =>
      `"${r.username}" (${r.tenantCode === null ? 'platform' : `tenant "${r.tenantCode}"`})`;
    const done = results.filter((r) => r.reset);
    for (const r of results.filter((r) => !r.reset)) console.error(`admin: no account ${name(r)} in ${store.where}`);
    if (done.length === 0) {
      code = 1;
    } else {
      const source = config.seedAdminPassword ? 'SEED_ADMIN_PASSWORD' : `${password}  (generated now, shown once)`;
      console.log(`Password of ${done.map(name).join(' and ')} set: ${source}`);
      console.log('Their lock-outs are lifted and their sessions ended.');
    }
  } finally {
    await cache.close();
    await database.close();
  }
} catch (err) {
  console.error(`admin: ${(err as Error).message}`);
  code = 1;
} finally {
  await store.release();
}
process.exit(code);
