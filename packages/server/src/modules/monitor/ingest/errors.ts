import { AppError } from '../../../platform/http/errors.ts';

/** Errors of report ingestion (spec §4.6 rule 1). */
export const ingestErrors = {
  unknownSiteKey: () => new AppError(403, 'monitor.unknown_site_key', 'The X-Analytics-Site-Key names no active site'),
  originNotAllowed: () =>
    new AppError(403, 'monitor.origin_not_allowed', "The request's Origin is not in the site's allowed origins"),
};
