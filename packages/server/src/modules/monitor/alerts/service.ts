import type { Static } from 'typebox';
import type { Scope } from '../../../platform/auth/principal.ts';
import type { AppContext } from '../../../platform/context.ts';
import type { Db } from '../../../platform/db/client.ts';
import { rotateWebhookSecret } from '../../../platform/egress/webhook-secrets.ts';
import type { ErrorLevel, ErrorType } from '../tables.ts';
import { type AlertNotify, deliverAlert, secretContexts } from './deliver.ts';
import { alertErrors } from './errors.ts';
import { evaluateRule, type Hits, isDue, reportMatches } from './evaluate.ts';
import type { AlertLogRow, AlertRuleRow } from './repository.ts';
import * as repo from './repository.ts';
import { createRuleCache } from './rule-cache.ts';
import type { AlertLogQuery, AlertRuleCreate, AlertRuleQuery, AlertRuleUpdate } from './schemas.ts';

export type AlertDeps = {
  notify: AlertNotify;
  /** users of one tenant among `ids` (identity module): recipients must be among them */
  userContacts(tenantId: number | null, ids: number[]): Promise<{ id: number; active: boolean }[]>;
};

/** A report just recorded (after its transaction committed). */
export type ReportedOccurrence = {
  tenantId: number | null;
  groupId: number;
  isNew: boolean;
  type: ErrorType;
  level: ErrorLevel;
  message: string;
};

function toAlertRuleView(r: AlertRuleRow) {
  return {
    id: r.id,
    name: r.name,
    enabled: r.enabled,
    condition: r.condition,
    errorType: r.errorType ?? null,
    level: r.level ?? null,
    threshold: r.threshold,
    windowMinutes: r.windowMinutes,
    channels: r.channels,
    recipients: r.recipients,
    webhookUrl: r.webhookUrl ?? null,
    webhookSecretHint: r.secretHint ?? null,
    webhookPreviousSecretExpiresAt: r.previousSecretExpiresAt?.toISOString() ?? null,
    lastTriggeredAt: r.lastTriggeredAt?.toISOString() ?? null,
    createdBy: r.createdBy ?? null,
    createdAt: r.createdAt.toISOString(),
    updatedAt: r.updatedAt.toISOString(),
  };
}

/** The answer of a write: the webhook secret only when that write created it (shown once). */
const written = (r: AlertRuleRow, webhookSecret: string | null) =>
  webhookSecret === null ? toAlertRuleView(r) : { ...toAlertRuleView(r), webhookSecret };

const toAlertLogView = (l: AlertLogRow) => ({
  id: l.id,
  ruleId: l.ruleId,
  ruleSnapshot: l.ruleSnapshot,
  hits: l.hits,
  channels: l.channels,
  test: l.test,
  createdAt: l.createdAt.toISOString(),
});

/** What the log keeps of the rule as it was when it fired. */
const snapshot = (r: AlertRuleRow) => {
  const { createdAt: _c, updatedAt: _u, ...rest } = toAlertRuleView(r);
  return rest as Record<string, unknown>;
};

type RuleFields = Pick<
  AlertRuleRow,
  'enabled' | 'channels' | 'recipients' | 'webhookUrl' | 'name' | 'condition' | 'threshold' | 'windowMinutes'
> & { errorType: ErrorType | null; level: ErrorLevel | null };

export type AlertService = ReturnType<typeof createAlertService>;

/** Alert rules and their history (spec §2.5, §4.6 rules 6–7, §7.2). */
export function createAlertService(ctx: AppContext, deps: AlertDeps) {
  const cached = createRuleCache(ctx.db, ctx.cache, ctx.clock);

  /** spec §4.6 rule 7: what an enabled rule needs to deliver; recipients must be the tenant's users */
  async function check(scope: Scope, f: RuleFields) {
    if (f.webhookUrl) {
      let ok = false;
      try {
        const u = new URL(f.webhookUrl);
        ok = u.protocol === 'http:' || u.protocol === 'https:';
      } catch {}
      if (!ok) throw alertErrors.invalidRule('webhookUrl', 'must be an http or https URL');
    }
    if (f.recipients.length) {
      const found = new Set((await deps.userContacts(scope.tenantId, f.recipients)).map((u) => u.id));
      const missing = f.recipients.filter((id) => !found.has(id));
      if (missing.length)
        throw alertErrors.invalidRule('recipients', `not users of this tenant: ${missing.join(', ')}`);
    }
    if (!f.enabled) return;
    if (f.channels.length === 0)
      throw alertErrors.invalidRule('channels', 'an enabled rule needs at least one channel');
    if (f.channels.includes('webhook') && !f.webhookUrl)
      throw alertErrors.invalidRule('webhookUrl', 'the webhook channel needs a URL');
    if ((f.channels.includes('email') || f.channels.includes('inapp')) && f.recipients.length === 0)
      throw alertErrors.invalidRule('recipients', 'email and in-app channels need recipients');
  }

  /** A new webhook signing secret for the rule; its old one (if any) keeps signing for `graceSeconds`. */
  async function newSecret(db: Db, scope: Scope, rule: AlertRuleRow, graceSeconds: number) {
    const now = ctx.clock();
    const { secret, columns } = rotateWebhookSecret(ctx.secrets, rule, secretContexts(rule.id), graceSeconds, now);
    const row = await repo.updateRule(db, scope, rule.id, { ...columns, updatedAt: now });
    if (!row) throw alertErrors.notFound();
    return { row, secret };
  }

  /** A rule gets its secret with its first webhook URL (rules saved before signing: at their next write). */
  async function withSecret(db: Db, scope: Scope, rule: AlertRuleRow) {
    return rule.webhookUrl && !rule.secretEncrypted ? newSecret(db, scope, rule, 0) : { row: rule, secret: null };
  }

  async function writeLog(rule: AlertRuleRow, hits: Hits, test: boolean, key: string) {
    const channels = await deliverAlert(ctx, deps.notify, rule, hits, key);
    return repo.insertLog(ctx.db, {
      tenantId: rule.tenantId,
      ruleId: rule.id,
      ruleSnapshot: snapshot(rule),
      hits: hits as unknown as Record<string, unknown>,
      channels,
      test,
      createdAt: ctx.clock(),
    });
  }

  /** Fires the rule if this caller wins the debounce; only the winner delivers and logs. */
  async function fire(rule: AlertRuleRow, hits: Hits, now: Date): Promise<boolean> {
    const claimed = await repo.claimFiring(ctx.db, rule.id, now);
    if (!claimed) return false;
    // its lastTriggeredAt moved: no instance should keep evaluating it until the window passes
    await cached.changed(claimed.tenantId);
    await writeLog(claimed, hits, false, `error-alert:${rule.id}:${now.toISOString()}`);
    return true;
  }

  return {
    /** subscribes to rule changes made on other instances; call once at registration */
    listen: () => cached.listen(),

    /**
     * Rules saved before alert webhooks were signed get a secret at start, so their webhooks keep
     * going out after an upgrade (now signed; an admin rotates the secret to read it). Idempotent,
     * and safe with several instances starting at once.
     */
    async signUnsignedRules(): Promise<number> {
      let signed = 0;
      for (const rule of await repo.rulesWithoutSecret(ctx.db)) {
        const { columns } = rotateWebhookSecret(ctx.secrets, rule, secretContexts(rule.id), 0, ctx.clock());
        if (await repo.setSecretIfMissing(ctx.db, rule.id, columns)) signed++;
      }
      if (signed)
        ctx.log.info({ rules: signed }, 'error alert: webhook signing secrets given to rules saved before signing');
      return signed;
    },

    async list(scope: Scope, q: Static<typeof AlertRuleQuery>) {
      const page = await repo.pageRules(ctx.db, scope, q);
      return { ...page, list: page.list.map(toAlertRuleView) };
    },
    async get(scope: Scope, id: number) {
      const row = await repo.findRule(ctx.db, scope, id);
      if (!row) throw alertErrors.notFound();
      return toAlertRuleView(row);
    },
    async create(scope: Scope, b: Static<typeof AlertRuleCreate>) {
      const f: RuleFields = {
        name: b.name,
        enabled: b.enabled ?? false,
        condition: b.condition,
        errorType: b.errorType ?? null,
        level: b.level ?? null,
        threshold: b.threshold ?? 1,
        windowMinutes: b.windowMinutes ?? 60,
        channels: b.channels ?? [],
        recipients: b.recipients ?? [],
        webhookUrl: b.webhookUrl ?? null,
      };
      await check(scope, f);
      const userId = scope.principal?.kind === 'user' ? scope.principal.userId : null;
      // the encryption context holds the row id, so the secret is written once the id exists
      const { row, secret } = await ctx.db.transaction(async (tx) =>
        withSecret(tx, scope, await repo.insertRule(tx, scope, { ...f, createdBy: userId })),
      );
      await cached.changed(row.tenantId);
      return written(row, secret);
    },
    async update(scope: Scope, id: number, b: Static<typeof AlertRuleUpdate>) {
      const cur = await repo.findRule(ctx.db, scope, id);
      if (!cur) throw alertErrors.notFound();
      const f: RuleFields = {
        name: b.name ?? cur.name,
        enabled: b.enabled ?? cur.enabled,
        condition: b.condition ?? cur.condition,
        errorType: b.errorType !== undefined ? b.errorType : (cur.errorType ?? null),
        level: b.level !== undefined ? b.level : (cur.level ?? null),
        threshold: b.threshold ?? cur.threshold,
        windowMinutes: b.windowMinutes ?? cur.windowMinutes,
        channels: b.channels ?? cur.channels,
        recipients: b.recipients ?? cur.recipients,
        webhookUrl: b.webhookUrl !== undefined ? b.webhookUrl : cur.webhookUrl,
      };
      await check(scope, f);
      const { row, secret } = await ctx.db.transaction(async (tx) => {
        const updated = await repo.updateRule(tx, scope, id, { ...f, updatedAt: ctx.clock() });
        if (!updated) throw alertErrors.notFound();
        return withSecret(tx, scope, updated);
      });
      await cached.changed(row.tenantId);
      return written(row, secret);
    },
    async setEnabled(scope: Scope, id: number, enabled: boolean) {
      return this.update(scope, id, { enabled });
    },
    /** A new webhook signing secret, answered once; the old one keeps signing for `graceSeconds`. */
    async rotateWebhookSecret(scope: Scope, id: number, graceSeconds = 86_400) {
      const cur = await repo.findRule(ctx.db, scope, id);
      if (!cur) throw alertErrors.notFound();
      const { row, secret } = await newSecret(ctx.db, scope, cur, graceSeconds);
      await cached.changed(row.tenantId);
      return written(row, secret);
    },
    async remove(scope: Scope, id: number) {
      if (!(await repo.deleteRule(ctx.db, scope, id))) throw alertErrors.notFound();
      await cached.changed(scope.tenantId);
    },

    /** A test send with the rule's current channels: logged (test=true), the debounce untouched. */
    async test(scope: Scope, id: number) {
      const rule = await repo.findRule(ctx.db, scope, id);
      if (!rule) throw alertErrors.notFound();
      if (rule.channels.length === 0) throw alertErrors.invalidRule('channels', 'the rule has no channel');
      const now = ctx.clock();
      const hits: Hits = {
        trigger: 'test',
        condition: rule.condition,
        windowStart: new Date(now.getTime() - rule.windowMinutes * 60_000).toISOString(),
        windowEnd: now.toISOString(),
        count: 0,
        groups: [],
      };
      const row = await writeLog(rule, hits, true, `error-alert-test:${rule.id}:${now.getTime()}`);
      return toAlertLogView(row);
    },

    async logs(scope: Scope, q: Static<typeof AlertLogQuery>) {
      const page = await repo.pageLogs(ctx.db, scope, q);
      return { ...page, list: page.list.map(toAlertLogView) };
    },

    /** The evaluateErrorAlerts task: every enabled rule whose window has passed, looking back one window. */
    async evaluateAll(): Promise<{ evaluated: number; fired: number }> {
      const now = ctx.clock();
      let fired = 0;
      const due = await repo.dueRules(ctx.db, now);
      for (const rule of due) {
        try {
          const hits = await evaluateRule(ctx.db, rule, now, 'task');
          if (hits && (await fire(rule, hits, now))) fired++;
        } catch (err) {
          ctx.log.error({ err, ruleId: rule.id }, 'error alert: evaluation failed');
        }
      }
      return { evaluated: due.length, fired };
    },

    /** Report-time evaluation (spec §4.6 rule 6) of the report's tenant's rules. */
    async onReport(r: ReportedOccurrence): Promise<void> {
      const now = ctx.clock();
      for (const rule of await cached.enabled(r.tenantId)) {
        if (!isDue(rule, now) || !reportMatches(rule, r)) continue;
        const hits: Hits | null =
          rule.condition === 'new_error'
            ? r.isNew
              ? {
                  trigger: 'report',
                  condition: rule.condition,
                  windowStart: new Date(now.getTime() - rule.windowMinutes * 60_000).toISOString(),
                  windowEnd: now.toISOString(),
                  count: 1,
                  groups: [{ id: r.groupId, message: r.message, type: r.type, level: r.level }],
                }
              : null
            : await evaluateRule(ctx.db, rule, now, 'report');
        if (hits) await fire(rule, hits, now);
      }
    },
  };
}
