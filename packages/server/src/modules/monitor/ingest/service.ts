import type { Static } from 'typebox';
import type { Scope } from '../../../platform/auth/principal.ts';
import type { AppContext } from '../../../platform/context.ts';
import type { SiteRow } from '../sites/repository.ts';
import type { ErrorLevel } from '../tables.ts';
import { ingestErrors } from './errors.ts';
import { fingerprintOf } from './fingerprint.ts';
import { createIgnoreMatcher } from './ignore-patterns.ts';
import { createReportWriter } from './report-writer.ts';
import { LIMITS, type ReportBody } from './schemas.ts';
import { parseUserAgent } from './user-agent.ts';

export type Report = Static<typeof ReportBody>;
export type ReportRequest = {
  scope: Scope;
  body: Report;
  /** X-Analytics-Site-Key */
  siteKey: string | undefined;
  /** Origin header */
  origin: string | undefined;
  userAgent: string;
};
export type ReportOutcome =
  | { accepted: true; groupId: number; eventId: number }
  | { accepted: false; reason: 'ignored' };

/** Called after a report's transaction committed (alert evaluation); must not throw or block. */
export type IngestHooks = {
  onReport?(r: {
    tenantId: number | null;
    groupId: number;
    isNew: boolean;
    type: Report['type'];
    level: ErrorLevel;
    message: string;
  }): void;
};

/** The active site a public key names, or null (the sites module's cache). */
export type ActiveSite = (siteKey: string) => Promise<SiteRow | null>;

/**
 * Truncates to `max` UTF-16 units, never between the two halves of a surrogate pair: half of one
 * has no UTF-8 form, and in a jsonb column (breadcrumbs, http) PostgreSQL refuses it outright.
 */
function cut(s: string | undefined, max: number): string {
  const v = s ?? '';
  if (v.length <= max) return v;
  const last = v.charCodeAt(max - 1);
  return v.slice(0, last >= 0xd800 && last <= 0xdbff ? max - 1 : max);
}

/**
 * Who a report belongs to (spec §4.6 rule 1): a signed-in caller's tenant, else the tenant of the
 * active site its X-Analytics-Site-Key names (only from that site's allowed origins), else none
 * (platform scope). The affected identity is the user or member, else the anonymous session.
 */
async function attribute(
  activeSite: ActiveSite,
  r: ReportRequest,
): Promise<{ tenantId: number | null; identity: string | null }> {
  const p = r.scope.principal;
  if (p?.kind === 'user') return { tenantId: r.scope.tenantId, identity: `u:${p.userId}` };
  if (p?.kind === 'member') return { tenantId: r.scope.tenantId, identity: `m:${p.memberId}` };
  const identity = r.body.sessionId ? `a:${r.body.sessionId}` : null;
  if (r.siteKey === undefined) return { tenantId: null, identity };
  const site = await activeSite(r.siteKey);
  if (!site) throw ingestErrors.unknownSiteKey();
  if (!r.origin || !site.allowedOrigins.includes(r.origin.toLowerCase())) throw ingestErrors.originNotAllowed();
  return { tenantId: site.tenantId, identity };
}

/** Ingestion of front-end error reports and their grouping into issues (spec §2.5, §3.4, §8). */
export function createIngestService(ctx: AppContext, activeSite: ActiveSite, hooks: IngestHooks = {}) {
  const ignore = createIgnoreMatcher(ctx.settings);
  const writer = createReportWriter(ctx.db, ctx.log);
  return {
    async report(r: ReportRequest): Promise<ReportOutcome> {
      const { tenantId, identity } = await attribute(activeSite, r);
      const b = r.body;
      const message = cut(b.message, LIMITS.message);
      // Matched against the stored (truncated) message: what the issue will show is what is filtered.
      if (await ignore.ignores(tenantId, message)) return { accepted: false, reason: 'ignored' };

      const environment = b.environment ?? 'production';
      const stack = cut(b.stack, LIMITS.stack);
      const sourceUrl = cut(b.sourceUrl, LIMITS.url);
      const level: ErrorLevel = b.level ?? (b.type === 'crash' ? 'fatal' : 'error');
      const fp = fingerprintOf({ tenantId, environment, type: b.type, message, stack, sourceUrl });
      const breadcrumbs = (b.breadcrumbs ?? [])
        .slice(-LIMITS.breadcrumbs)
        .map((c) => (c.message === undefined ? c : { ...c, message: cut(c.message, LIMITS.breadcrumbMessage) }));
      const http = b.http ? { ...b.http, url: cut(b.http.url, LIMITS.url) } : null;
      const context = {
        ...(b.context ?? {}),
        ...(b.line !== undefined ? { line: b.line } : {}),
        ...(b.column !== undefined ? { column: b.column } : {}),
      };
      const userAgent = cut(r.userAgent, LIMITS.url);
      const { groupId, eventId, isNew } = await writer.record({
        tenantId,
        ...fp,
        environment,
        type: b.type,
        level,
        message,
        release: b.release ?? '',
        stack,
        sourceUrl,
        pageUrl: cut(b.pageUrl, LIMITS.url),
        breadcrumbs,
        context,
        http,
        replayId: b.replayId ?? null,
        userAgent,
        ...parseUserAgent(userAgent),
        identity,
        ip: r.scope.ip,
        at: ctx.clock(),
      });
      hooks.onReport?.({ tenantId, groupId, isNew, type: b.type, level, message });
      return { accepted: true, groupId, eventId };
    },
  };
}
