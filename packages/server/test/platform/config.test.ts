import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, refuseDataLeftBehind } from '../../src/config.ts';

const SECRET = 'a-secret-of-at-least-thirty-two-characters!';
const KEYS = `k1:${Buffer.alloc(32, 7).toString('base64')}`;
const base = { NODE_ENV: 'test', JWT_SECRET: SECRET };

function rejection(env: Record<string, string>): ConfigError {
  try {
    loadConfig({ ...base, ...env });
  } catch (err) {
    if (err instanceof ConfigError) return err;
    throw err;
  }
  throw new Error(`loadConfig accepted ${JSON.stringify(env)}`);
}

describe('loadConfig', () => {
  it('accepts a valid environment and applies defaults', () => {
    const c = loadConfig({ ...base, PORT: '8080', DATABASE_URL: 'postgres://u@db:5432/atrium', LOG_LEVEL: 'warn' });
    expect(c).toMatchObject({ env: 'test', port: 8080, databaseUrl: 'postgres://u@db:5432/atrium', logLevel: 'warn' });
    expect(loadConfig(base)).toMatchObject({ port: 3000, host: '127.0.0.1', databaseUrl: null, redisUrl: null });
  });

  it.each([['abc'], ['-1'], ['70000'], ['80.5']])('rejects PORT=%s naming PORT', (port) => {
    expect(rejection({ PORT: port }).message).toMatch(/\bPORT\b/);
  });

  it.each([['not a url'], ['mysql://u@db/atrium'], ['http://db:5432/atrium']])(
    'rejects DATABASE_URL=%s naming DATABASE_URL',
    (url) => {
      expect(rejection({ DATABASE_URL: url }).message).toMatch(/DATABASE_URL/);
    },
  );

  it('rejects an unknown LOG_LEVEL naming it', () => {
    expect(rejection({ LOG_LEVEL: 'verbose' }).message).toMatch(/LOG_LEVEL/);
  });

  it('rejects an unknown NODE_ENV naming it', () => {
    expect(rejection({ NODE_ENV: 'staging' }).message).toMatch(/NODE_ENV/);
  });

  it('refuses production without JWT_SECRET', () => {
    expect(() => loadConfig({ NODE_ENV: 'production' })).toThrow(ConfigError);
    expect(() => loadConfig({ NODE_ENV: 'production' })).toThrow(/JWT_SECRET/);
  });

  it('refuses a JWT_SECRET shorter than 32 characters', () => {
    expect(rejection({ JWT_SECRET: 'short-secret' }).message).toMatch(/JWT_SECRET.*32/);
    expect(rejection({ NODE_ENV: 'production', JWT_SECRET: 'x'.repeat(31) }).message).toMatch(/JWT_SECRET/);
  });

  it('refuses production without SECRET_KEYS, and malformed keys anywhere', () => {
    expect(rejection({ NODE_ENV: 'production', JWT_SECRET: SECRET }).message).toMatch(/SECRET_KEYS/);
    expect(rejection({ SECRET_KEYS: 'k1:c2hvcnQ=' }).message).toMatch(/SECRET_KEYS.*32-byte/);
    expect(rejection({ SECRET_KEYS: 'no-colon' }).message).toMatch(/SECRET_KEYS/);
  });

  it('refuses production without PUBLIC_BASE_URL: links handed out must reach the service', () => {
    expect(rejection({ NODE_ENV: 'production', JWT_SECRET: SECRET, SECRET_KEYS: KEYS }).message).toMatch(
      /PUBLIC_BASE_URL/,
    );
  });

  it('accepts production with a long enough JWT_SECRET, SECRET_KEYS and PUBLIC_BASE_URL', () => {
    const env = { NODE_ENV: 'production', JWT_SECRET: SECRET, SECRET_KEYS: KEYS, PUBLIC_BASE_URL: 'https://a.example' };
    expect(loadConfig(env).env).toBe('production');
  });

  it('DATA_DIR is relative to where npm was run (INIT_CWD), else to the working directory', () => {
    expect(loadConfig({ ...base, INIT_CWD: '/srv/atrium' }).dataDir).toBe('/srv/atrium/data');
    expect(loadConfig({ ...base, INIT_CWD: '/srv/atrium', DATA_DIR: 'state' }).dataDir).toBe('/srv/atrium/state');
    expect(loadConfig({ ...base, INIT_CWD: '/srv/atrium', DATA_DIR: '/var/lib/atrium' }).dataDir).toBe(
      '/var/lib/atrium',
    );
    expect(loadConfig(base).dataDir).toBe(join(process.cwd(), 'data'));
  });

  it('an unset DATA_DIR that does not exist, beside the data of an earlier version, stops the start saying where it is', () => {
    const root = mkdtempSync(join(tmpdir(), 'atrium-data-moved-'));
    try {
      const earlier = join(root, 'packages', 'server', 'data');
      mkdirSync(join(earlier, 'pg'), { recursive: true });
      expect(() => refuseDataLeftBehind(join(root, 'data'), earlier)).toThrow(
        `move it there (mv "${earlier}" "${join(root, 'data')}"), or set DATA_DIR="${earlier}"`,
      );
      expect(existsSync(join(root, 'data'))).toBe(false); // nothing made
      mkdirSync(join(root, 'data'));
      expect(() => refuseDataLeftBehind(join(root, 'data'), earlier)).not.toThrow();
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it('LOG_FORMAT is json, pretty or auto (the default), naming the variable otherwise', () => {
    expect(loadConfig(base).logFormat).toBe('auto');
    expect(loadConfig({ ...base, LOG_FORMAT: 'json' }).logFormat).toBe('json');
    expect(rejection({ LOG_FORMAT: 'xml' }).message).toMatch(/LOG_FORMAT must be json, pretty or auto/);
  });

  it('the public base URL is PUBLIC_BASE_URL without a trailing slash, else the address it listens on', () => {
    expect(loadConfig({ ...base, PUBLIC_BASE_URL: 'https://atrium.example/office/' }).publicBaseUrl).toBe(
      'https://atrium.example/office',
    );
    expect(loadConfig({ ...base, PORT: '8080' }).publicBaseUrl).toBe('http://127.0.0.1:8080');
    expect(loadConfig({ ...base, HOST: 'atrium.lan' }).publicBaseUrl).toBe('http://atrium.lan:3000');
    // a wildcard listen address is no destination: its family's loopback address is
    expect(loadConfig({ ...base, HOST: '0.0.0.0' }).publicBaseUrl).toBe('http://127.0.0.1:3000');
    expect(loadConfig({ ...base, HOST: '::' }).publicBaseUrl).toBe('http://[::1]:3000');
    expect(loadConfig({ ...base, HOST: 'fe80::1' }).publicBaseUrl).toBe('http://[fe80::1]:3000');
    expect(rejection({ PUBLIC_BASE_URL: 'ftp://atrium.example' }).message).toMatch(/PUBLIC_BASE_URL/);
  });
});

describe('node src/main.ts with a bad variable', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'atrium-config-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('exits with 78 (EX_CONFIG) and names the variable on stderr', async () => {
    const cwd = fileURLToPath(new URL('../..', import.meta.url));
    const child = spawn(process.execPath, ['src/main.ts'], {
      cwd,
      env: { PATH: process.env.PATH, NODE_ENV: 'test', DATA_DIR: dataDir, PORT: 'abc' },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    const code = await new Promise<number | null>((resolve) => child.on('close', (c) => resolve(c)));
    expect(code).toBe(78);
    expect(stderr).toMatch(/\bPORT\b/);
  });
});
