import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseSecretKeys, type SecretKey } from './platform/crypto/secrets.ts';
import { type AllowEntry, parseAllowList } from './platform/egress/allow-list.ts';
import type { LogFormat } from './platform/logging/destination.ts';

/**
 * The one typed configuration. Read and checked once at start (`loadConfig(process.env)`),
 * then passed down; nothing reads `process.env` anywhere else.
 * docs/operations.md has the table of variables; keep the two in step.
 */
export type Config = {
  env: 'development' | 'production' | 'test';
  host: string;
  port: number;
  dataDir: string;
  databaseUrl: string | null;
  databasePoolMax: number;
  redisUrl: string | null;
  redisKeyPrefix: string;
  logLevel: string;
  /** LOG_FORMAT: json, pretty, or auto (pretty on a terminal, JSON otherwise) */
  logFormat: LogFormat;
  trustProxy: boolean;
  bodyLimitBytes: number;
  jwtSecret: string;
  accessTokenTtlSeconds: number;
  refreshTokenTtlSeconds: number;
  seedAdminUsername: string;
  seedAdminPassword: string | null;
  captchaEnabled: boolean | null;
  loginIpLimitPerMinute: number;
  loginAccountLimitPerMinute: number;
  license: string | null;
  /**
   * Where people and channels reach this service, without a trailing slash: the base of every
   * link it hands out (share and short links, QR codes, unsubscribe links, OAuth endpoints,
   * payment notify URLs). PUBLIC_BASE_URL; in development and tests http://HOST:PORT.
   */
  publicBaseUrl: string;
  /** OAuth 2 server lifetimes in seconds (OAUTH_*_TTL_SECONDS) */
  oauthAccessTokenTtlSeconds: number;
  oauthRefreshTokenTtlSeconds: number;
  oauthCodeTtlSeconds: number;
  /** the admin console's consent page (OAUTH_CONSENT_URL); default PUBLIC_BASE_URL + /oauth2/authorize */
  oauthConsentUrl: string | null;
  /** field-encryption keys, the current one first (SECRET_KEYS) */
  secretKeys: SecretKey[];
  /** jobs: idle worker poll, cron check and expired-job sweep intervals in seconds (JOBS_*) */
  jobsPollSeconds: number;
  jobsCronCheckSeconds: number;
  jobsSweepSeconds: number;
  /** destinations outbound calls may reach although private or local (EGRESS_ALLOW_HOSTS) */
  egressAllowHosts: AllowEntry[];
};

export class ConfigError extends Error {}

type Env = Record<string, string | undefined>;

function fail(name: string, why: string): never {
  throw new ConfigError(`Invalid configuration: ${name} ${why}`);
}

function str(env: Env, name: string): string | null {
  const v = env[name];
  return v === undefined || v === '' ? null : v;
}

function int(env: Env, name: string, def: number, min: number, max: number): number {
  const raw = str(env, name);
  if (raw === null) return def;
  if (!/^\d+$/.test(raw)) fail(name, `must be a whole number, got "${raw}"`);
  const n = Number(raw);
  if (n < min || n > max) fail(name, `must be between ${min} and ${max}, got ${n}`);
  return n;
}

function bool(env: Env, name: string): boolean | null {
  const raw = str(env, name);
  if (raw === null) return null;
  if (['true', '1', 'yes', 'on'].includes(raw.toLowerCase())) return true;
  if (['false', '0', 'no', 'off'].includes(raw.toLowerCase())) return false;
  return fail(name, `must be true or false, got "${raw}"`);
}

function url(env: Env, name: string, protocols: string[]): string | null {
  const raw = str(env, name);
  if (raw === null) return null;
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    return fail(name, 'is not a valid URL');
  }
  if (!protocols.includes(parsed.protocol)) fail(name, `must use ${protocols.join(' or ')}`);
  return raw;
}

/**
 * Earlier versions kept the default DATA_DIR in packages/server/data. Starting empty beside it
 * would look like lost data: the operator decides where it goes.
 */
export function refuseDataLeftBehind(dataDir: string, earlier = resolve(import.meta.dirname, '../data')): void {
  if (earlier === dataDir || existsSync(dataDir) || !existsSync(join(earlier, 'pg'))) return;
  fail(
    'DATA_DIR',
    `is unset and ${dataDir} does not exist, but ${earlier} holds the data of an earlier version (its default DATA_DIR): ` +
      `move it there (mv "${earlier}" "${dataDir}"), or set DATA_DIR="${earlier}"`,
  );
}

/** In development a missing secret is generated once and kept under DATA_DIR. */
function developmentSecret(
  dataDir: string,
  name = 'jwt-secret',
  make = () => randomBytes(48).toString('base64url'),
): string {
  const file = join(dataDir, name);
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  mkdirSync(dataDir, { recursive: true });
  const secret = make();
  writeFileSync(file, secret, { mode: 0o600 });
  return secret;
}

function egressAllowHosts(env: Env): AllowEntry[] {
  try {
    return parseAllowList(str(env, 'EGRESS_ALLOW_HOSTS'));
  } catch (err) {
    return fail('EGRESS_ALLOW_HOSTS', `entry ${(err as Error).message}`);
  }
}

/**
 * This instance's own address, as a link others can open: a wildcard listen address (0.0.0.0, ::)
 * is no destination, so it becomes the loopback address of its family.
 */
export function ownAddress(host: string, port: number): string {
  const reachable = host === '0.0.0.0' ? '127.0.0.1' : host === '::' ? '::1' : host;
  return `http://${reachable.includes(':') ? `[${reachable}]` : reachable}:${port}`;
}

export function loadConfig(env: Env): Config {
  const rawEnv = str(env, 'NODE_ENV') ?? 'development';
  if (!['development', 'production', 'test'].includes(rawEnv)) {
    fail('NODE_ENV', `must be development, production or test, got "${rawEnv}"`);
  }
  const mode = rawEnv as Config['env'];
  // Relative to where the person ran `npm start` (npm's INIT_CWD), not to the package npm runs it in.
  const dataDir = resolve(str(env, 'INIT_CWD') ?? process.cwd(), str(env, 'DATA_DIR') ?? './data');
  if (mode !== 'test' && str(env, 'DATA_DIR') === null) refuseDataLeftBehind(dataDir);

  let jwtSecret = str(env, 'JWT_SECRET');
  if (jwtSecret === null) {
    if (mode === 'production') fail('JWT_SECRET', 'is required outside development (at least 32 characters)');
    jwtSecret = mode === 'test' ? randomBytes(48).toString('base64url') : developmentSecret(dataDir);
  } else if (jwtSecret.length < 32) {
    fail('JWT_SECRET', 'must be at least 32 characters');
  }

  let secretKeysRaw = str(env, 'SECRET_KEYS');
  if (secretKeysRaw === null) {
    if (mode === 'production') fail('SECRET_KEYS', 'is required outside development (id:base64 of 32 bytes)');
    const make = () => `dev:${randomBytes(32).toString('base64')}`;
    secretKeysRaw = mode === 'test' ? make() : developmentSecret(dataDir, 'secret-keys', make);
  }
  let secretKeys: SecretKey[];
  try {
    secretKeys = parseSecretKeys(secretKeysRaw);
    if (secretKeys.some((k) => k.key.length !== 32 || !/^[A-Za-z0-9_-]{1,32}$/.test(k.id))) throw new Error();
  } catch {
    return fail('SECRET_KEYS', 'must be id:base64key[,id:base64key…] with 32-byte keys and ids of [A-Za-z0-9_-]');
  }

  const seedAdminPassword = str(env, 'SEED_ADMIN_PASSWORD');
  if (seedAdminPassword !== null && seedAdminPassword.length < 8) {
    fail('SEED_ADMIN_PASSWORD', 'must be at least 8 characters');
  }

  const host = str(env, 'HOST') ?? '127.0.0.1';
  const port = int(env, 'PORT', 3000, 0, 65535);
  let publicBaseUrl = url(env, 'PUBLIC_BASE_URL', ['http:', 'https:']);
  if (publicBaseUrl === null && mode === 'production') {
    fail('PUBLIC_BASE_URL', 'is required outside development: the address people reach this service at (https://…)');
  }
  publicBaseUrl = (publicBaseUrl ?? ownAddress(host, port)).replace(/\/+$/, '');

  const logLevel = str(env, 'LOG_LEVEL') ?? (mode === 'test' ? 'silent' : 'info');
  if (!['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].includes(logLevel)) {
    fail('LOG_LEVEL', `must be one of fatal, error, warn, info, debug, trace, silent`);
  }

  const logFormat = str(env, 'LOG_FORMAT') ?? 'auto';
  if (!['json', 'pretty', 'auto'].includes(logFormat))
    fail('LOG_FORMAT', `must be json, pretty or auto, got "${logFormat}"`);

  return {
    env: mode,
    host,
    port,
    dataDir,
    databaseUrl: url(env, 'DATABASE_URL', ['postgres:', 'postgresql:']),
    databasePoolMax: int(env, 'DATABASE_POOL_MAX', 10, 1, 500),
    redisUrl: url(env, 'REDIS_URL', ['redis:', 'rediss:']),
    redisKeyPrefix: str(env, 'REDIS_KEY_PREFIX') ?? 'atrium:',
    logLevel,
    logFormat: logFormat as LogFormat,
    trustProxy: bool(env, 'TRUST_PROXY') ?? false,
    bodyLimitBytes: int(env, 'BODY_LIMIT_BYTES', 1024 * 1024, 1024, 1024 * 1024 * 1024),
    jwtSecret,
    accessTokenTtlSeconds: int(env, 'ACCESS_TOKEN_TTL_SECONDS', 900, 30, 86_400),
    refreshTokenTtlSeconds: int(env, 'REFRESH_TOKEN_TTL_SECONDS', 7 * 86_400, 60, 90 * 86_400),
    seedAdminUsername: str(env, 'SEED_ADMIN_USERNAME') ?? 'admin',
    seedAdminPassword,
    captchaEnabled: bool(env, 'CAPTCHA_ENABLED'),
    loginIpLimitPerMinute: int(env, 'LOGIN_IP_LIMIT_PER_MINUTE', 30, 1, 100_000),
    loginAccountLimitPerMinute: int(env, 'LOGIN_ACCOUNT_LIMIT_PER_MINUTE', 10, 1, 100_000),
    license: str(env, 'LICENSE'),
    publicBaseUrl,
    oauthAccessTokenTtlSeconds: int(env, 'OAUTH_ACCESS_TOKEN_TTL_SECONDS', 3600, 60, 86_400),
    oauthRefreshTokenTtlSeconds: int(env, 'OAUTH_REFRESH_TOKEN_TTL_SECONDS', 30 * 86_400, 300, 365 * 86_400),
    oauthCodeTtlSeconds: int(env, 'OAUTH_CODE_TTL_SECONDS', 60, 10, 600),
    oauthConsentUrl: url(env, 'OAUTH_CONSENT_URL', ['http:', 'https:']),
    secretKeys,
    jobsPollSeconds: int(env, 'JOBS_POLL_SECONDS', 2, 1, 60),
    jobsCronCheckSeconds: int(env, 'JOBS_CRON_CHECK_SECONDS', 30, 1, 45),
    jobsSweepSeconds: int(env, 'JOBS_SWEEP_SECONDS', 60, 1, 3600),
    egressAllowHosts: egressAllowHosts(env),
  };
}
