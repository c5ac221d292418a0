import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedIdentity } from '../../src/modules/identity/index.ts';
import { ADMIN_PASSWORD, call, createTestApp, type TestApp } from '../helpers/app.ts';

/**
 * `npm run admin -- reset-password` (scripts/admin.ts) as an operator runs it, on the database of a
 * service that keeps running (DATABASE_URL here; the embedded server is shared the same way).
 */
const SCRIPT = fileURLToPath(new URL('../../scripts/admin.ts', import.meta.url));
const NEW_PASSWORD = 'Reset#Pass2026';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t?.close();
});

function admin(args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; out: string }> {
  const proc = spawn(process.execPath, [SCRIPT, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      PATH: process.env.PATH ?? '',
      NODE_ENV: 'test',
      DATABASE_URL: t.store.url,
      ...(process.env.TEST_REDIS_URL
        ? { REDIS_URL: process.env.TEST_REDIS_URL, REDIS_KEY_PREFIX: t.store.prefix }
        : {}),
      ...env,
    },
  });
  let out = '';
  proc.stdout.on('data', (c: Buffer) => {
    out += c;
  });
  proc.stderr.on('data', (c: Buffer) => {
    out += c;
  });
  return new Promise((done) => proc.on('close', (code) => done({ code, out })));
}

const signIn = (password: string, tenantCode?: string) =>
  call(t.app, 'POST', '/api/auth/login', {
    body: { username: 'admin', password, ...(tenantCode ? { tenantCode } : {}) },
  });

describe('npm run admin -- reset-password', () => {
  it('sets SEED_ADMIN_PASSWORD on the platform and demo administrators, lifting a lock-out and ending their sessions', async () => {
    const before = await signIn(ADMIN_PASSWORD, 'demo');
    const refreshToken = before.json().data.refreshToken as string;
    let locked = await signIn('wrong-password');
    for (let i = 0; i < 20 && locked.statusCode !== 403; i++) locked = await signIn('wrong-password');
    expect(locked.json().error).toBe('auth.account_locked');

    const run = await admin(['reset-password'], { SEED_ADMIN_PASSWORD: NEW_PASSWORD });
    expect(run.code, run.out).toBe(0);
    expect(run.out).toContain('Password of "admin" (platform) and "admin" (tenant "demo") set: SEED_ADMIN_PASSWORD');

    expect((await signIn(NEW_PASSWORD)).statusCode).toBe(200); // the lock-out is gone
    expect((await signIn(NEW_PASSWORD, 'demo')).statusCode).toBe(200);
    expect((await signIn(ADMIN_PASSWORD, 'demo')).json().error).toBe('auth.invalid_credentials');
    const refreshed = await call(t.app, 'POST', '/api/auth/refresh', { body: { refreshToken } });
    expect(refreshed.statusCode).toBe(401);
  });

  it('without SEED_ADMIN_PASSWORD prints a generated password once; --platform leaves the tenant alone', async () => {
    const run = await admin(['reset-password', '--platform']);
    expect(run.code, run.out).toBe(0);
    const generated = run.out.match(
      /Password of "admin" \(platform\) set: (\S+) {2}\(generated now, shown once\)/,
    )?.[1];
    expect(generated).toBeDefined();
    expect((await signIn(generated as string)).statusCode).toBe(200);
    expect((await signIn(NEW_PASSWORD, 'demo')).statusCode).toBe(200);
  });

  it('an account that does not exist is reported, exit 1, nothing changed', async () => {
    const run = await admin(['reset-password', '--tenant', 'no-such-tenant'], {
      SEED_ADMIN_PASSWORD: 'Other#Pass2026',
    });
    expect(run.code).toBe(1);
    expect(run.out).toContain('no account "admin" (tenant "no-such-tenant")');
    expect((await signIn(NEW_PASSWORD, 'demo')).statusCode).toBe(200);
  });

  it.each([
    [['frobnicate'], /unknown command "frobnicate"/],
    [[], /which command\?/],
    [['reset-password', '--tenant', 'demo', '--platform'], /--tenant and --platform exclude each other/],
    [['reset-password', '--bogus'], /Unknown option '--bogus'/],
  ])('refuses %j with the usage (exit 64)', async (args, message) => {
    const run = await admin(args, { SEED_ADMIN_PASSWORD: 'Other#Pass2026' });
    expect(run.code).toBe(64);
    expect(run.out).toMatch(message);
    expect(run.out).toContain('usage: npm run admin -- reset-password');
    expect((await signIn(NEW_PASSWORD, 'demo')).statusCode).toBe(200);
  });

  it('a SEED_ADMIN_PASSWORD set too short is refused by name (exit 78)', async () => {
    const run = await admin(['reset-password'], { SEED_ADMIN_PASSWORD: 'short' });
    expect(run.code).toBe(78);
    expect(run.out).toMatch(/SEED_ADMIN_PASSWORD must be at least 8 characters/);
  });
});

describe('the seed report at a later start', () => {
  it("flags a SEED_ADMIN_PASSWORD that is not the administrator's password, and only then", async () => {
    expect((await admin(['reset-password', '--platform'], { SEED_ADMIN_PASSWORD: NEW_PASSWORD })).code).toBe(0);
    const seed = (password: string) =>
      seedIdentity(
        { ...t.app.ctx, config: { ...t.app.ctx.config, seedAdminPassword: password } },
        t.app.permissionCodes,
      );
    expect((await seed('Not-the#Password1')).seedPasswordIgnored).toBe(true);
    expect((await seed(NEW_PASSWORD)).seedPasswordIgnored).toBe(false);
  });
});
