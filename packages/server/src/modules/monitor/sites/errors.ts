import { AppError } from '../../../platform/http/errors.ts';

/** Errors of reporting sites (`monitor.site_*`). */
export const siteErrors = {
  notFound: () => new AppError(404, 'monitor.site_not_found', 'Site not found'),
  nameExists: () =>
    new AppError(409, 'monitor.site_exists', 'A site with this name already exists', {
      details: [{ field: 'name', message: 'already exists' }],
    }),
  tenantRequired: () =>
    new AppError(
      400,
      'monitor.tenant_required',
      'A site attributes reports to a tenant: work inside a tenant (X-Tenant-Id) to manage sites',
    ),
};
