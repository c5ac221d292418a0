import { type Scope, userOf } from '../../../platform/auth/principal.ts';
import type { AppContext } from '../../../platform/context.ts';
import type { Db } from '../../../platform/db/client.ts';
import { onUniqueViolation, rowOrThrow } from '../../../platform/db/sql.ts';
import { rotateWebhookSecret } from '../../../platform/egress/webhook-secrets.ts';
import { checkSubscriptionFields } from './checks.ts';
import { webhookErrors } from './errors.ts';
import type { WebhookEventRegistry } from './events.ts';
import * as repo from './repository.ts';
import { secretContexts } from './signing-secrets.ts';
import type { SubscriptionRow, SubscriptionStatus } from './tables.ts';

/** `appId` null: a subscription of no application, a module's own (the payment center's). */
export type SubscriptionCreateInput = { appId: number | null; url: string; events: string[]; description?: string };
export type SubscriptionUpdateInput = { url?: string; events?: string[]; description?: string };

/** The answer shape: everything but the tenant and the encrypted secrets. */
export function toSubscriptionView(row: SubscriptionRow) {
  const { tenantId: _t, secretEncrypted: _s, previousSecretEncrypted: _p, ...rest } = row;
  return rest;
}

/**
 * Subscriptions of the caller's tenant, for its applications. The signing secret is answered
 * only by create and rotate; re-enabling forgets the failure streak.
 */
export function createSubscriptionService(ctx: AppContext, events: WebhookEventRegistry) {
  const { db, clock, secrets } = ctx;
  const checkDeps = { db, egress: ctx.egress, events };

  const findOrThrow = (scope: Scope, id: number): Promise<SubscriptionRow> =>
    rowOrThrow(repo.subscriptions.findById(db, scope, id), webhookErrors.subscriptionNotFound);

  const write = <T>(fn: () => Promise<T>) => onUniqueViolation(fn, () => webhookErrors.urlExists());

  return {
    findOrThrow,

    async list(scope: Scope, q: repo.SubscriptionFilter) {
      const page = await repo.pageSubscriptions(db, scope, q);
      return { ...page, list: page.list.map(toSubscriptionView) };
    },

    get: async (scope: Scope, id: number) => toSubscriptionView(await findOrThrow(scope, id)),

    async create(scope: Scope, input: SubscriptionCreateInput) {
      await checkSubscriptionFields(checkDeps, scope, { ...input, appId: input.appId ?? undefined });
      const { row, secret } = await write(() =>
        db.transaction(async (tx) => {
          const now = clock();
          const created = await repo.subscriptions.insert(tx, scope, {
            appId: input.appId,
            url: input.url,
            events: input.events,
            description: input.description ?? '',
            // the encryption context holds the row id, so the secret is written once the id exists
            secretEncrypted: '',
            secretHint: '',
            createdBy: userOf(scope)?.userId ?? null,
            createdAt: now,
            updatedAt: now,
          });
          const fresh = rotateWebhookSecret(secrets, { secretEncrypted: null }, secretContexts(created.id), 0, now);
          const row = await repo.subscriptions.update(tx, scope, created.id, fresh.columns);
          return { row: row ?? created, secret: fresh.secret };
        }),
      );
      return { ...toSubscriptionView(row), secret };
    },

    async update(scope: Scope, id: number, patch: SubscriptionUpdateInput) {
      await findOrThrow(scope, id);
      await checkSubscriptionFields(checkDeps, scope, { url: patch.url, events: patch.events });
      const row = await write(() => repo.subscriptions.update(db, scope, id, { ...patch, updatedAt: clock() }));
      if (!row) throw webhookErrors.subscriptionNotFound();
      return toSubscriptionView(row);
    },

    async remove(scope: Scope, id: number) {
      // its deliveries and their attempts go with it (ON DELETE CASCADE)
      const [deleted] = await repo.subscriptions.deleteMany(db, scope, [id]);
      if (deleted === undefined) throw webhookErrors.subscriptionNotFound();
    },

    async setStatus(scope: Scope, id: number, status: SubscriptionStatus) {
      const current = await findOrThrow(scope, id);
      if (current.status === status) return toSubscriptionView(current);
      const now = clock();
      const row = await repo.subscriptions.update(
        db,
        scope,
        id,
        status === 'active'
          ? {
              status,
              consecutiveFailures: 0,
              failingSince: null,
              disabledAt: null,
              disabledReason: null,
              updatedAt: now,
            }
          : { status, disabledAt: now, disabledReason: 'manual', updatedAt: now },
      );
      if (!row) throw webhookErrors.subscriptionNotFound();
      return toSubscriptionView(row);
    },

    /** A new secret; the old one keeps signing too for `graceSeconds` (receivers accept either). */
    async rotateSecret(scope: Scope, id: number, graceSeconds = 86_400) {
      const current = await findOrThrow(scope, id);
      const now = clock();
      const { secret, columns } = rotateWebhookSecret(secrets, current, secretContexts(id), graceSeconds, now);
      const row = await repo.subscriptions.update(db, scope, id, { ...columns, updatedAt: now });
      if (!row) throw webhookErrors.subscriptionNotFound();
      return { ...toSubscriptionView(row), secret };
    },

    /** An application's subscriptions, deliveries and attempts go with it, in the deleting transaction. */
    deleteForApp: (tx: Db, appId: number) => repo.deleteSubscriptionsOfApp(tx, appId),
  };
}

export type SubscriptionService = ReturnType<typeof createSubscriptionService>;
