import { loadConfig } from '../../src/config.ts';

export const ADMIN_PASSWORD = 'Admin#Pass2026';

/** The configuration every test app starts from; `env` adds to it or overrides it. */
export function testConfig(env: Record<string, string>) {
  return loadConfig({
    NODE_ENV: 'test',
    CAPTCHA_ENABLED: 'false',
    SEED_ADMIN_PASSWORD: ADMIN_PASSWORD,
    JWT_SECRET: 'test-secret-test-secret-test-secret-0123456789',
    LOGIN_IP_LIMIT_PER_MINUTE: '10000',
    LOGIN_ACCOUNT_LIMIT_PER_MINUTE: '10000',
    ...env,
  });
}
