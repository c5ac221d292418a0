import type { FastifyInstance } from 'fastify';
import { route } from '../../../platform/http/route.ts';
import { IdParams, Ok, PageOf } from '../../../platform/http/schemas.ts';
import { ConsoleSite, Site, SiteCreate, SiteQuery, SiteUpdate } from './schemas.ts';
import type { SiteService } from './service.ts';

const tags = ['FrontendErrors'];

/** `/api/frontend-errors/sites`: sites whose anonymous reports are attributed to the caller's tenant. */
export function siteRoutes(app: FastifyInstance, sites: SiteService) {
  route(app, {
    method: 'GET',
    url: '/api/frontend-errors/sites',
    operation: 'monitor.site.list',
    auth: 'user',
    permission: 'monitor:error:list',
    schema: { tags, summary: 'List reporting sites', querystring: SiteQuery, response: PageOf(Site) },
    handler: async (req) => sites.list(req.scope, req.query),
  });

  route(app, {
    method: 'GET',
    url: '/api/frontend-errors/sites/:id',
    operation: 'monitor.site.get',
    auth: 'user',
    permission: 'monitor:error:list',
    schema: { tags, summary: 'Get a reporting site', params: IdParams, response: Site },
    handler: async (req) => sites.get(req.scope, req.params.id),
  });

  route(app, {
    method: 'POST',
    url: '/api/frontend-errors/sites',
    operation: 'monitor.site.create',
    auth: 'user',
    permission: 'monitor:error:manage',
    status: 201,
    schema: {
      tags,
      summary: 'Create a reporting site (a random siteKey is generated and answered)',
      description:
        'Anonymous reports that send the siteKey as X-Analytics-Site-Key are attributed to this tenant, and only from the allowed origins (exact match).',
      body: SiteCreate,
      response: Site,
    },
    handler: async (req) => sites.create(req.scope, req.body),
  });

  route(app, {
    method: 'PUT',
    url: '/api/frontend-errors/sites/:id',
    operation: 'monitor.site.update',
    auth: 'user',
    permission: 'monitor:error:manage',
    schema: {
      tags,
      summary: 'Change a site’s name, allowed origins or status (a disabled site’s key is refused)',
      params: IdParams,
      body: SiteUpdate,
      response: Site,
    },
    handler: async (req) => sites.update(req.scope, req.params.id, req.body),
  });

  route(app, {
    method: 'DELETE',
    url: '/api/frontend-errors/sites/:id',
    operation: 'monitor.site.delete',
    auth: 'user',
    permission: 'monitor:error:manage',
    schema: { tags, summary: 'Delete a reporting site (its key stops working)', params: IdParams, response: Ok },
    handler: async (req) => {
      await sites.remove(req.scope, req.params.id);
    },
  });
}

/**
 * `GET /api/frontend-errors/console-site`: what the web console needs to report its own errors
 * (docs/decisions/0037): the public key of the platform's site, null while it is disabled or gone.
 * Public, like the key itself: the console asks before anyone signs in. Served from memory.
 */
export function consoleSiteRoute(app: FastifyInstance, consoleSiteKey: () => Promise<string | null>) {
  route(app, {
    method: 'GET',
    url: '/api/frontend-errors/console-site',
    operation: 'monitor.console_site.get',
    auth: 'public',
    schema: {
      tags,
      summary: 'The web console’s own reporting site key (null: the console does not report)',
      description:
        'The service makes the platform’s site for its console at start (allowed origin: PUBLIC_BASE_URL’s). ' +
        'Platform administrators disable it (PUT /api/frontend-errors/sites/{id} at platform scope) to stop console reports.',
      response: ConsoleSite,
    },
    handler: async () => ({ siteKey: await consoleSiteKey() }),
  });
}
