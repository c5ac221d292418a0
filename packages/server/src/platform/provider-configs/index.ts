/**
 * The provider-configuration kit: the mechanics storage, email, SMS and push configurations
 * share, kept once. A module still owns its table, its provider-specific fields and checks, its
 * error keys and its routes; the kit holds the rest.
 *
 * - Rows per scope: a tenant's, and the platform's (`tenant_id` 0) as the fallback where the
 *   spec says so (`effectiveDefault`, `effective`).
 * - Listed configurations (several per scope, exactly one default, kept by a partial unique
 *   index): create, update, delete, set-default (old default cleared and new one set in one
 *   transaction; a concurrent second one gets the module's 409), the connection-test hook.
 * - Single configurations (one per scope): save with the current row handed to the module's check.
 * - Secrets encrypted with `<table>.<column>:<id>` as context, written once the row id exists,
 *   never answered: `mask` drops the column and `tenantId` and adds a boolean flag.
 * - Unique violations become the module's 409 (name taken, default set concurrently).
 *
 * A new provider type (payment channels next, see the design notes on channel_a/b/c) uses it so:
 * 1. `tables.ts`: `pgTable('payment_channel_configs', { ...listedConfigColumns(), channel: …,
 *    mchId: …, keyEncrypted: text('key_encrypted') }, (t) => listedConfigIndexes('payment_channel_configs', t))`,
 *    and a migration (drizzle-kit generate) that creates it with both indexes.
 * 2. `errors.ts`: the six `ListedConfigErrors` under the module's keys (`payment.channel_config_*`).
 * 3. The service: `createListedConfigs(ctx, { table, secret: { table: 'payment_channel_configs',
 *    column: 'key_encrypted', key: 'keyEncrypted', flag: 'keySet' }, errors, firstIsDefault,
 *    deleteDefault })`; it checks the channel's own fields, then calls `create`/`update`/…, and
 *    answers `mask(row)`. A test endpoint passes `test` a `connect(row, secret)` that calls the
 *    channel (a signed query) and throws on failure.
 * 4. Routes as storage's (`files/routes/storage-configs.ts`): list, get, create (201), update,
 *    delete, `POST /:id/default`, `POST /:id/test`.
 */

export { listedConfigColumns, listedConfigIndexes, singleConfigColumns, singleConfigIndexes } from './columns.ts';
export { createListedConfigs, type ListedConfigErrors } from './listed.ts';
export { listedConfigRepository, singleConfigRepository } from './repository.ts';
export { ConnectionTestResult } from './schemas.ts';
export { configSecret } from './secret.ts';
export { createSingleConfigs } from './single.ts';
