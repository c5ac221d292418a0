// End to end: a standard client (oauth4webapi) completes the authorization-code flow with PKCE
// through the built console's consent page in a real Chromium (docs/decisions/0033).
import { mkdir } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import * as oauth from 'oauth4webapi';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ConsoleSite, hasChromium, startConsoleSite } from '../console/console-browser.ts';
import { ADMIN_PASSWORD, call, type TestApp } from '../helpers/app.ts';
import { createTenant, USER_PASSWORD } from '../helpers/fixtures.ts';
import { insecure } from './oauth-helpers.ts';

const ROOT = join(import.meta.dirname, '../../../..');
/** where the screenshots go (looked at by a person: both languages, both themes) */
const SHOTS = process.env.CONSENT_SCREENSHOTS ?? join(ROOT, 'packages/console/test-results/consent');

describe.skipIf(!hasChromium)('OAuth consent in Chromium, driven by oauth4webapi', () => {
  let site: ConsoleSite;
  let t: TestApp;
  let callback: Server;
  let as: oauth.AuthorizationServer;
  let client: oauth.Client;
  let clientSecret: string;
  let base: string;
  let redirectUri: string;

  beforeAll(async () => {
    // the service serves the console itself: its consent page is the default authorization endpoint
    site = await startConsoleSite();
    t = site.t;
    base = site.base;
    // the client's redirect URI: a loopback page (RFC 8252 §7.3)
    callback = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end('client'));
    await new Promise<void>((r) => callback.listen(0, '127.0.0.1', r));
    redirectUri = `http://127.0.0.1:${(callback.address() as AddressInfo).port}/cb`;

    const created = await call(t.app, 'POST', '/api/open-platform/apps', {
      token: t.demoAdminToken,
      body: {
        name: 'Calendar sync',
        homepageUrl: 'https://calendar.example/',
        clientType: 'confidential',
        grantTypes: ['authorization_code', 'refresh_token'],
        redirectUris: [redirectUri],
        allowedScopes: ['openid', 'profile', 'email', 'offline_access', 'drive:read'],
      },
    });
    expect(created.statusCode, created.body).toBe(201);
    client = { client_id: created.json().data.clientId };
    clientSecret = created.json().data.clientSecret;

    const issuer = new URL(base);
    as = await oauth.processDiscoveryResponse(
      issuer,
      await oauth.discoveryRequest(issuer, { algorithm: 'oidc', ...insecure }),
    );
    await mkdir(SHOTS, { recursive: true });
  }, 240_000);

  afterAll(async () => {
    await new Promise((r) => callback?.close(r));
    await site?.close();
  });

  /** The client's side: PKCE and state, the URL from the discovered authorization_endpoint. */
  async function authorizationUrl(overrides: Record<string, string> = {}) {
    const verifier = oauth.generateRandomCodeVerifier();
    const state = oauth.generateRandomState();
    const url = new URL(as.authorization_endpoint as string);
    const params = {
      client_id: client.client_id,
      redirect_uri: redirectUri,
      response_type: 'code',
      scope: 'openid profile email drive:read',
      state,
      code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      ...overrides,
    };
    for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
    return { url: url.toString(), verifier, state };
  }

  const newPage = (language: 'zh-CN' | 'en', theme: 'light' | 'dark'): Promise<Page> =>
    site.page({ language, theme, viewport: { width: 900, height: 900 } });

  /** Sent to sign-in with the application's tenant filled, signs in as the demo administrator, comes back. */
  async function signInThroughConsole(page: Page) {
    await page.waitForURL(/\/login\?/);
    expect(new URL(page.url()).searchParams.get('tenant')).toBe('demo');
    await expect.poll(() => page.locator('#tenantCode').inputValue()).toBe('demo');
    await page.locator('input[autocomplete=username]').fill('admin');
    await page.locator('input[autocomplete=current-password]').fill(ADMIN_PASSWORD);
    await page.locator('button[type=submit]').click();
    await page.waitForURL(/\/oauth2\/authorize\?/);
    await page.locator('[data-testid=redirect-host]').waitFor();
  }

  it('approve: the browser lands on the redirect URI with code and state; the code buys tokens and UserInfo', async () => {
    // no OAUTH_CONSENT_URL: the service's own console page is the endpoint
    expect(as.authorization_endpoint).toBe(`${base}/oauth2/authorize`);
    const start = await authorizationUrl();
    const page = await newPage('zh-CN', 'light');
    await page.goto(start.url);
    await signInThroughConsole(page);

    await expect.poll(() => page.locator('h1').textContent()).toContain('Calendar sync');
    expect(await page.locator('[data-testid=redirect-host]').textContent()).toBe(new URL(redirectUri).host);
    expect(await page.locator('main').textContent()).toContain('calendar.example');
    // the primary action has the focus: Enter approves
    expect(await page.evaluate(() => document.activeElement?.classList.contains('ant-btn-primary'))).toBe(true);
    await page.screenshot({ path: join(SHOTS, 'consent-zh-CN-light.png'), fullPage: true });
    await page.keyboard.press('Enter');
    await page.waitForURL((u) => u.toString().startsWith(redirectUri));

    const params = oauth.validateAuthResponse(as, client, new URL(page.url()), start.state);
    const auth = oauth.ClientSecretBasic(clientSecret);
    const tokens = await oauth.processAuthorizationCodeResponse(
      as,
      client,
      await oauth.authorizationCodeGrantRequest(as, client, auth, params, redirectUri, start.verifier, insecure),
    );
    const sub = oauth.getValidatedIdTokenClaims(tokens)?.sub as string;
    const info = await oauth.processUserInfoResponse(
      as,
      client,
      sub,
      await oauth.userInfoRequest(as, client, tokens.access_token, insecure),
    );
    expect(info).toMatchObject({ sub, preferred_username: 'admin' });
    await page.context().close();
  }, 180_000);

  it('deny: the browser lands on the redirect URI with error=access_denied and the state', async () => {
    const start = await authorizationUrl();
    const page = await newPage('en', 'dark');
    await page.goto(start.url);
    await signInThroughConsole(page);
    // granted by the approval above: shown as such
    expect(await page.locator('main').textContent()).toContain('Granted before');
    await page.screenshot({ path: join(SHOTS, 'consent-en-dark.png'), fullPage: true });
    await page.getByRole('button', { name: 'Deny' }).click();
    await page.waitForURL((u) => u.toString().startsWith(redirectUri));
    const url = new URL(page.url());
    expect(url.searchParams.get('error')).toBe('access_denied');
    expect(url.searchParams.get('state')).toBe(start.state);
    expect(() => oauth.validateAuthResponse(as, client, url, start.state)).toThrow(oauth.AuthorizationResponseError);
    await page.context().close();
  }, 180_000);

  for (const [language, theme] of [
    ['en', 'light'],
    ['zh-CN', 'dark'],
  ] as const) {
    it(`looks right in ${language}, ${theme} (screenshot)`, async () => {
      const page = await newPage(language, theme);
      await page.goto((await authorizationUrl()).url);
      await signInThroughConsole(page);
      await page.screenshot({ path: join(SHOTS, `consent-${language}-${theme}.png`), fullPage: true });
      await page.context().close();
    }, 180_000);
  }

  it('a user of another tenant is not asked: the page offers to sign in as someone else, into the right tenant', async () => {
    const other = await createTenant(t);
    const page = await newPage('en', 'light');
    await page.goto((await authorizationUrl()).url);
    await page.waitForURL(/\/login\?/);
    await expect.poll(() => page.locator('#tenantCode').inputValue()).toBe('demo');
    await page.locator('#tenantCode').fill(other.code);
    await page.locator('input[autocomplete=username]').fill('admin');
    await page.locator('input[autocomplete=current-password]').fill(USER_PASSWORD);
    await page.locator('button[type=submit]').click();
    await page.waitForURL(/\/oauth2\/authorize\?/);
    const someoneElse = page.getByRole('button', { name: 'Sign in as someone else' });
    await someoneElse.waitFor();
    expect(await page.locator('main').textContent()).toContain('“demo”');
    expect(await page.locator('[data-testid=redirect-host]').count()).toBe(0);
    await page.screenshot({ path: join(SHOTS, 'consent-wrong-account-en-light.png'), fullPage: true });
    await someoneElse.click();
    await signInThroughConsole(page);
    await page.context().close();
  }, 180_000);

  it('an unregistered redirect_uri: an error on the page, no sign-in, no navigation away', async () => {
    const start = await authorizationUrl({ redirect_uri: 'http://127.0.0.1:9/evil' });
    const page = await newPage('en', 'light');
    await page.goto(start.url);
    await page.getByRole('alert').waitFor();
    expect(await page.locator('main').textContent()).toContain('redirect_uri is not registered for this client');
    await page.waitForTimeout(500);
    expect(page.url()).toBe(start.url);
    await page.screenshot({ path: join(SHOTS, 'consent-error-en-light.png'), fullPage: true });
    await page.context().close();
  }, 180_000);
});
