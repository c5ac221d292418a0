import { Type } from 'typebox';
import { Id, PageQuery, Status, Timestamp } from '../../../platform/http/schemas.ts';

/** An exact origin as browsers send it: scheme, host, optional port; no path, no trailing slash. */
const Origin = Type.String({
  pattern: '^https?://[A-Za-z0-9.-]+(:[0-9]{1,5})?$',
  maxLength: 255,
  description: 'exact origin, e.g. https://shop.example.com',
});
const Origins = Type.Array(Origin, { maxItems: 50, uniqueItems: true });

export const Site = Type.Object({
  id: Id,
  name: Type.String(),
  siteKey: Type.String({ description: 'public key the reporter sends as X-Analytics-Site-Key' }),
  allowedOrigins: Type.Array(Type.String()),
  status: Status,
  createdAt: Timestamp,
  updatedAt: Timestamp,
});

export const SiteCreate = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 100 }),
  allowedOrigins: Origins,
  status: Type.Optional(Status),
});

export const SiteUpdate = Type.Partial(SiteCreate);

export const SiteQuery = Type.Object({ ...PageQuery.properties, status: Type.Optional(Status) });

export const ConsoleSite = Type.Object({
  siteKey: Type.Union([Type.String(), Type.Null()], {
    description: 'X-Analytics-Site-Key for the console’s reports; null when its site is disabled or deleted',
  }),
});
