import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { userOf } from '../../../platform/auth/principal.ts';
import { httpErrors } from '../../../platform/http/errors.ts';
import { route } from '../../../platform/http/route.ts';
import { NullableTimestamp, Ok } from '../../../platform/http/schemas.ts';
import type { AuthService } from '../auth-service.ts';
import type { ProfileService } from '../profile-service.ts';
import { REFRESH_COOKIE, REFRESH_COOKIE_PATH, type RefreshCookie, refreshCookieDocs } from '../refresh-cookie.ts';
import { MenuNode } from '../schemas.ts';
import type { Sessions } from '../sessions.ts';

const TokenPair = Type.Object({
  accessToken: Type.String(),
  tokenType: Type.Literal('Bearer'),
  expiresIn: Type.Integer({ description: 'seconds' }),
  refreshToken: Type.Optional(
    Type.String({
      description: `opaque, single use: each refresh returns a new one. Absent when it went into the ${REFRESH_COOKIE} cookie instead (web pages)`,
    }),
  ),
  refreshExpiresIn: Type.Integer({ description: 'seconds' }),
});

export function authRoutes(
  app: FastifyInstance,
  auth: AuthService,
  sessions: Sessions,
  profile: ProfileService,
  limits: { loginIpLimitPerMinute: number },
  refreshCookie: RefreshCookie,
) {
  route(app, {
    method: 'GET',
    url: '/api/auth/captcha',
    operation: 'identity.captcha.get',
    auth: 'public',
    schema: {
      tags: ['Auth'],
      summary: 'Get a single-use captcha image (or learn that captcha is off)',
      querystring: Type.Object({ tenantCode: Type.Optional(Type.String({ maxLength: 64 })) }),
      response: Type.Object({
        enabled: Type.Boolean(),
        captchaId: Type.Optional(Type.String()),
        image: Type.Optional(Type.String({ description: 'data: URI of an SVG image' })),
        expiresIn: Type.Optional(Type.Integer({ description: 'seconds' })),
      }),
    },
    handler: async (req) => auth.captcha(req.query.tenantCode),
  });

  route(app, {
    method: 'POST',
    url: '/api/auth/login',
    operation: 'identity.session.login',
    auth: 'public',
    errors: [401, 403], // wrong credentials; a locked or disabled account or tenant
    // per client IP across accounts, before the body is read; the per-account limit is the service's
    rateLimit: { key: 'ip', max: limits.loginIpLimitPerMinute, windowSeconds: 60 },
    schema: {
      tags: ['Auth'],
      summary: 'Sign in: returns a short-lived access token and a rotating refresh token',
      description:
        `With cookie: true (the web console) the refresh token is set as the HttpOnly ${REFRESH_COOKIE} cookie, ` +
        `sent back to ${REFRESH_COOKIE_PATH} only, and left out of the answer, so no page script can read it.`,
      body: Type.Object({
        username: Type.String({ minLength: 1, maxLength: 64 }),
        password: Type.String({ minLength: 1, maxLength: 256 }),
        tenantCode: Type.Optional(
          Type.String({ minLength: 1, maxLength: 64, description: 'absent for platform users' }),
        ),
        captchaId: Type.Optional(Type.String({ maxLength: 64 })),
        captchaCode: Type.Optional(Type.String({ maxLength: 16 })),
        cookie: Type.Optional(
          Type.Boolean({ description: 'true: the refresh token as an HttpOnly cookie, not in the answer' }),
        ),
      }),
      response: Type.Intersect([
        TokenPair,
        Type.Object({
          user: Type.Object({
            id: Type.Integer(),
            username: Type.String(),
            nickname: Type.String(),
            tenantId: Type.Union([Type.Integer(), Type.Null()]),
          }),
        }),
      ]),
    },
    cookies: { sets: refreshCookieDocs.login },
    handler: async (req, reply) => {
      const signedIn = await auth.login(req.body, { ip: req.ip, userAgent: req.headers['user-agent'] ?? '' });
      return req.body.cookie ? refreshCookie.handOver(req, reply, signedIn) : signedIn;
    },
  });

  route(app, {
    method: 'POST',
    url: '/api/auth/refresh',
    operation: 'identity.session.refresh',
    auth: 'public',
    errors: [401], // no refresh token, or one that is invalid or reused
    schema: {
      tags: ['Auth'],
      summary: 'Exchange a refresh token for a new token pair (the old refresh token dies)',
      description:
        `Without refreshToken, the ${REFRESH_COOKIE} cookie is used, and the request must carry the X-Requested-With ` +
        'header (403 request.script_header_required): the rotated token goes back into the cookie, not the answer. ' +
        '401 auth.refresh_token_missing (neither), auth.invalid_refresh_token, auth.refresh_token_reused (the session ' +
        'is revoked); a 401 to a cookie empties the cookie.',
      body: Type.Object({
        refreshToken: Type.Optional(
          Type.String({ minLength: 1, maxLength: 256, description: `absent: the ${REFRESH_COOKIE} cookie's` }),
        ),
      }),
      response: TokenPair,
    },
    cookies: refreshCookieDocs.refresh,
    handler: async (req, reply) =>
      req.body.refreshToken === undefined ? refreshCookie.refresh(req, reply) : sessions.refresh(req.body.refreshToken),
  });

  route(app, {
    method: 'POST',
    url: '/api/auth/logout',
    operation: 'identity.session.logout',
    auth: 'user',
    audit: false,
    schema: { tags: ['Auth'], summary: 'End the current session', response: Ok },
    cookies: { sets: refreshCookieDocs.logout },
    handler: async (req, reply) => {
      const p = userOf(req.scope);
      if (!p) throw httpErrors.unauthenticated();
      await sessions.revoke({ sessionId: p.sessionId }, 'logout');
      refreshCookie.clear(req, reply);
    },
  });

  route(app, {
    method: 'GET',
    url: '/api/auth/me',
    operation: 'identity.session.me',
    auth: 'user',
    schema: {
      tags: ['Auth'],
      summary: 'The signed-in user with roles, permissions and menu tree',
      response: Type.Object({
        user: Type.Object({
          id: Type.Integer(),
          username: Type.String(),
          nickname: Type.String(),
          email: Type.Union([Type.String(), Type.Null()]),
          phone: Type.Union([Type.String(), Type.Null()]),
          tenantId: Type.Union([Type.Integer(), Type.Null()]),
          departmentId: Type.Union([Type.Integer(), Type.Null()]),
          isSuper: Type.Boolean(),
          lastLoginAt: NullableTimestamp,
        }),
        tenant: Type.Union([
          Type.Object({ id: Type.Integer(), code: Type.String(), name: Type.String() }),
          Type.Null(),
        ]),
        roles: Type.Array(Type.Object({ id: Type.Integer(), code: Type.String(), name: Type.String() })),
        permissions: Type.Array(Type.String(), { description: '"*" for super administrators' }),
        menus: Type.Array(MenuNode),
      }),
    },
    handler: async (req) => profile.me(req.scope),
  });

  route(app, {
    method: 'PUT',
    url: '/api/auth/password',
    operation: 'identity.password.change',
    auth: 'user',
    schema: {
      tags: ['Auth'],
      summary: 'Change my password; my other sessions end',
      body: Type.Object({
        oldPassword: Type.String({ minLength: 1, maxLength: 256 }),
        newPassword: Type.String({ minLength: 1, maxLength: 256 }),
      }),
      response: Ok,
    },
    handler: async (req) => {
      await auth.changePassword(req.scope, req.body.oldPassword, req.body.newPassword);
    },
  });
}
