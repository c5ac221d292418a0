/**
 * Uploads the console's source maps to a running service's monitor, at platform scope, where the
 * console's error reports land (docs/decisions/0037), so their stacks show the original source.
 *
 *   CONSOLE_SOURCEMAPS=1 npm run build -w @atrium/console      # maps in dist/.vite/sourcemaps (never served)
 *   ATRIUM_URL=https://office.example.com ATRIUM_USERNAME=admin ATRIUM_PASSWORD=… \
 *     npm run sourcemaps:upload -w @atrium/console
 *
 * ATRIUM_TOKEN (a platform administrator's access token) may replace the username and password.
 * The release is the build's (dist/.vite/release.txt); a map replaces the stored one of the same
 * release and file name, so running it twice is harmless.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { RELEASE_FILE } from './release.ts';

const MAPS = join(RELEASE_FILE, '..', 'sourcemaps');

function fail(message: string): never {
  console.error(`sourcemaps: ${message}`);
  process.exit(1);
}

const base = (process.env.ATRIUM_URL ?? '').replace(/\/+$/, '');
if (!base) fail('set ATRIUM_URL to the service (PUBLIC_BASE_URL)');
if (!existsSync(RELEASE_FILE) || !existsSync(MAPS))
  fail('no maps: build with CONSOLE_SOURCEMAPS=1 npm run build -w @atrium/console first');
const release = readFileSync(RELEASE_FILE, 'utf8').trim();

async function token(): Promise<string> {
  if (process.env.ATRIUM_TOKEN) return process.env.ATRIUM_TOKEN;
  const { ATRIUM_USERNAME: username, ATRIUM_PASSWORD: password } = process.env;
  if (!username || !password)
    fail('set ATRIUM_TOKEN, or ATRIUM_USERNAME and ATRIUM_PASSWORD of a platform administrator');
  const res = await fetch(`${base}/api/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username, password }),
  });
  const body = (await res.json().catch(() => ({}))) as { data?: { accessToken?: string }; message?: string };
  if (!res.ok || !body.data?.accessToken) fail(`sign-in refused (${res.status}): ${body.message ?? ''}`);
  return body.data.accessToken;
}

const bearer = await token();
const files = readdirSync(MAPS).filter((f) => f.endsWith('.map'));
for (const map of files) {
  const form = new FormData();
  form.append('release', release);
  // the bundle's name as stacks show it: the map's name without `.map`
  form.append('fileName', map.slice(0, -'.map'.length));
  form.append('file', new Blob([readFileSync(join(MAPS, map))], { type: 'application/json' }), map);
  const res = await fetch(`${base}/api/frontend-errors/source-maps`, {
    method: 'POST',
    headers: { authorization: `Bearer ${bearer}` },
    body: form,
  });
  if (res.status !== 201) fail(`${map}: ${res.status} ${await res.text()}`);
}
console.log(`sourcemaps: ${files.length} maps of ${release} uploaded to ${base}`);
