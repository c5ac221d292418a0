import swagger from '@fastify/swagger';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { registerReferenceRoutes } from './api-reference.ts';
import { guideLink, registerGuideRoutes } from './docs-guides.ts';
import { replyFormats } from './reply-formats.ts';
import { type RouteConfig, route } from './route.ts';

/** Tags of spec §4.2, in display order; a route's tags must be one of these. */
export const TAGS: { name: string; description: string }[] = [
  { name: 'Auth', description: 'Sign-in, tokens, captcha, current user' },
  { name: 'Users', description: 'Admin users' },
  { name: 'Roles', description: 'Roles and their permissions and menus' },
  { name: 'Menus', description: 'Menu tree and button permissions' },
  { name: 'Departments', description: 'Department tree' },
  { name: 'Positions', description: 'Positions' },
  { name: 'UserGroups', description: 'User groups (grant subjects)' },
  { name: 'Tenants', description: 'Tenants (platform scope)' },
  { name: 'Members', description: 'Member identities' },
  { name: 'Settings', description: 'Runtime settings modules' },
  { name: 'Dictionaries', description: 'Dictionary types and items' },
  { name: 'SystemConfigs', description: 'System configuration entries' },
  { name: 'Notices', description: 'Notices with live push' },
  { name: 'Files', description: 'Managed files, uploads and storage configurations' },
  {
    name: 'DriveSpaces',
    description: 'Drive spaces: my spaces, settings, archive, deletion, members, ownership transfer',
  },
  {
    name: 'DriveNodes',
    description: 'Drive folders and files: listing, create, rename, move, copy, stars, recent, shared with me',
  },
  { name: 'DriveFiles', description: 'Drive uploads (single, chunked, instant) and file content' },
  { name: 'DriveVersions', description: 'Drive file versions: history, new version, rollback, pin' },
  { name: 'DriveRecycleBin', description: 'Drive delete to the recycle bin, restore, purge, empty' },
  { name: 'DriveLocks', description: 'Drive check-out locks' },
  { name: 'DriveLegalHolds', description: 'Drive legal holds (administrators)' },
  {
    name: 'DrivePermissions',
    description: 'Drive grants, inheritance, why a subject has its role, node activities',
  },
  {
    name: 'DriveAccessRequests',
    description: 'Drive access requests: ask for a role on a node; managers approve or reject',
  },
  {
    name: 'DriveSharePublic',
    description: 'Anonymous share links: metadata, password sessions (X-Share-Session or a cookie), browsing, download',
  },
  { name: 'DriveShareLinks', description: 'Drive share links: create, change and revoke token links to a node' },
  { name: 'AsyncTasks', description: 'My long-running tasks: progress, cancel, result download' },
  { name: 'ExportJobs', description: 'Exports that run as tasks (CSV result files)' },
  { name: 'Notifications', description: 'Event catalog, overrides, preferences, dispatch log, unsubscribe' },
  { name: 'InAppMessages', description: 'In-app messages and templates' },
  { name: 'Announcements', description: 'Announcements: publish to users, roles, departments; inbox and reads' },
  { name: 'Email', description: 'SMTP configuration, email templates, send logs' },
  { name: 'Sms', description: 'SMS provider configurations, templates, send logs' },
  { name: 'Push', description: 'Push devices and provider, push send logs' },
  { name: 'LoginLogs', description: 'Sign-in history' },
  { name: 'OperationLogs', description: 'Audit of write operations' },
  { name: 'OnlineSessions', description: 'Signed-in sessions' },
  { name: 'Profile', description: 'The signed-in user’s own records' },
  { name: 'Dashboard', description: 'Totals for the console home' },
  { name: 'Monitor', description: 'Health, server monitor, licence' },
  { name: 'CronJobs', description: 'Cron jobs bound to registered handlers, run log (platform scope)' },
  {
    name: 'Payment',
    description: 'Payment channel configurations, orders, refunds, the sandbox channel, event outbox',
  },
  {
    name: 'OAuth2',
    description: 'OAuth 2.1 authorization server: authorize, token, revoke, introspect, UserInfo, discovery',
  },
  { name: 'OpenApps', description: 'Open-platform applications (OAuth clients), scopes, connected apps' },
  { name: 'OpenWebhooks', description: 'Open-platform webhook subscriptions, deliveries and redelivery' },
  { name: 'OpenApi', description: 'The open interface for applications (OAuth 2 bearer, /api/open/v1)' },
  { name: 'FrontendErrors', description: 'Front-end error monitoring: reports, issues, events, sites' },
  { name: 'Docs', description: 'The API description and its reference UI' },
];

/** Registers the OpenAPI generator. Call before any route so every route is collected. */
export async function registerOpenApi(
  app: FastifyInstance,
  opts: {
    version: string;
    /** `config.publicBaseUrl`: the one server, so every sample in the reference names the host */
    serverUrl: string;
    /**
     * The OAuth2 scheme: the scopes applications can hold (name → description) and the absolute
     * endpoints of the server's discovery metadata (docs/decisions/0028-absolute-links.md).
     */
    oauth: { scopes: Record<string, string>; authorizationUrl: string; tokenUrl: string };
  },
): Promise<void> {
  const { scopes, authorizationUrl, tokenUrl } = opts.oauth;
  // operations whose body may be left out (route `optionalBody`): @fastify/swagger marks every body required
  const optionalBodies = new Set<string>();
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Atrium API',
        version: opts.version,
        description: `Multi-tenant back-office platform. Conventions: ${guideLink('api-conventions.md')}.`,
      },
      // Paths carry their /api prefix: the server is the service's base URL, without /api.
      servers: [{ url: opts.serverUrl, description: 'This Atrium service (PUBLIC_BASE_URL)' }],
      components: {
        securitySchemes: {
          BearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
          // open-platform routes (auth 'app'): opaque access tokens from the OAuth 2.1 server
          OAuth2: {
            type: 'oauth2',
            flows: {
              clientCredentials: { tokenUrl, scopes },
              authorizationCode: { authorizationUrl, tokenUrl, refreshUrl: tokenUrl, scopes },
            },
          },
        },
      },
      security: [{ BearerAuth: [] }],
      tags: TAGS,
    },
    // A body the handler reads itself (multipart, octet-stream), or one that may be left out, is
    // documented, not validated.
    transform: ({ schema, url, route }) => {
      const config = route.config as Partial<RouteConfig> | undefined;
      if (config?.optionalBody && config.operation) optionalBodies.add(config.operation);
      const documented = config?.documentedBody;
      return { schema: documented ? { ...schema, body: documented } : schema, url };
    },
    transformObject: (document) => {
      if (!('openapiObject' in document)) return document.swaggerObject;
      type Op = { operationId?: string; requestBody?: { required?: boolean } };
      for (const item of Object.values(document.openapiObject.paths ?? {})) {
        for (const op of Object.values(item ?? {}) as Op[]) {
          if (op?.requestBody && op.operationId && optionalBodies.has(op.operationId)) op.requestBody.required = false;
        }
      }
      return document.openapiObject;
    },
    // Shared schemas keep their $id as component name (ErrorBody) instead of def-N.
    refResolver: {
      buildLocalReference: (json, _baseUri, _fragment, i) => (typeof json.$id === 'string' ? json.$id : `def-${i}`),
    },
  });
}

/**
 * `GET /api/openapi.json`, the reference page `GET /api/docs` and the guides it links to; call
 * after all routes are registered.
 */
export async function registerDocsRoutes(app: FastifyInstance, opts: { serverUrl: string }): Promise<void> {
  route(app, {
    method: 'GET',
    url: '/api/openapi.json',
    operation: 'docs.openapi.get',
    auth: 'public',
    stateless: true, // built from the route declarations
    reply: replyFormats.body(),
    schema: {
      tags: ['Docs'],
      summary: 'OpenAPI 3.1 document, generated at run time from the route declarations',
      response: Type.Object({ openapi: Type.String() }, { additionalProperties: true }),
    },
    handler: async (_req, reply) => reply.type('application/json').send(app.swagger()),
  });
  registerReferenceRoutes(app, opts);
  registerGuideRoutes(app);
}
