import { randomBytes } from 'node:crypto';
import type { Scope } from '../../../platform/auth/principal.ts';
import type { AppContext } from '../../../platform/context.ts';
import type { PageRequest } from '../../../platform/db/scoped.ts';
import { createListedConfigs } from '../../../platform/provider-configs/index.ts';
import type { AdapterRegistry } from '../adapters.ts';
import { ChannelCallError, type ChannelCode } from '../channels/types.ts';
import { paymentErrors } from '../errors.ts';
import { CHANNEL_CONFIG_SECRET, paymentChannelConfigs } from '../tables.ts';
import { CHANNEL_FIELDS, checkGroup } from './fields.ts';
import {
  activeConfigsOfChannelAcrossTenants,
  type ChannelConfigRow,
  configListFilter,
  firstActiveOfChannel,
} from './repository.ts';

type Status = 'active' | 'disabled';
export type ChannelConfigCreateInput = {
  channel: ChannelCode;
  name: string;
  status?: Status;
  remark?: string;
  notifyUrl?: string;
  fields?: Record<string, string>;
  secrets?: Record<string, string>;
};
export type ChannelConfigUpdateInput = Partial<Omit<ChannelConfigCreateInput, 'channel'>>;

/** The callback path of a channel (spec §4.5). */
export const notifyPath = (channel: ChannelCode) => `/api/public/payment/notify/${channel}` as const;

/**
 * Channel configurations (issue 16 item 1) through the provider-configuration kit: several per
 * channel per tenant, each enabled or not; the secrets one encrypted JSON object, never answered.
 */
export function createChannelConfigService(
  ctx: Pick<AppContext, 'db' | 'clock' | 'secrets' | 'links'>,
  adapters: AdapterRegistry,
) {
  const configs = createListedConfigs(ctx, {
    table: paymentChannelConfigs,
    secret: CHANNEL_CONFIG_SECRET,
    firstIsDefault: false,
    deleteDefault: 'when-last',
    errors: {
      notFound: paymentErrors.configNotFound,
      nameExists: paymentErrors.configNameExists,
      defaultConflict: paymentErrors.configDefaultConflict,
      disabled: paymentErrors.configDisabled,
      defaultNotDeletable: paymentErrors.configDefaultNotDeletable,
      inUse: paymentErrors.configInUse,
    },
  });
  /** An empty notifyUrl is built from the public base URL (spec §4.5). */
  const effectiveNotifyUrl = (row: Pick<ChannelConfigRow, 'notifyUrl' | 'channel'>): string =>
    row.notifyUrl || ctx.links.to(notifyPath(row.channel));

  function toChannelConfigView(row: ChannelConfigRow) {
    const { isDefault: _default, ...masked } = configs.mask(row);
    return { ...masked, effectiveNotifyUrl: effectiveNotifyUrl(row) };
  }

  function openSecrets(row: ChannelConfigRow): Record<string, string> {
    const clear = configs.openSecret(row);
    return clear ? (JSON.parse(clear) as Record<string, string>) : {};
  }

  /** The registry's names first; then what the channel's adapter finds wrong with the values. */
  function check(channel: ChannelCode, fields: Record<string, string>, secrets: Record<string, string>) {
    const spec = CHANNEL_FIELDS[channel];
    const has = (values: Record<string, string>) => (name: string) => Boolean(values[name]);
    const errors = [
      ...checkGroup('fields', spec.fields, fields, has(fields)),
      ...checkGroup('secrets', spec.secrets, secrets, has(secrets)),
    ];
    if (!errors.length && spec.rule) errors.push(...spec.rule(fields));
    const entry = adapters.get(channel);
    if (!errors.length && entry) {
      const config = entry.toConfig({ configId: 0, tenantId: null, fields, secrets, notifyUrl: '' });
      for (const p of entry.adapter.checkConfig(config, ctx.clock()))
        errors.push({ field: `${p.field in spec.secrets ? 'secrets' : 'fields'}.${p.field}`, message: p.message });
    }
    if (errors.length) throw paymentErrors.invalidFields(errors);
  }

  /**
   * The connection test: a signed query of an order number that cannot exist. The channel's
   * signed "no such order" proves the gateway is reachable, our credentials are accepted and its
   * answers verify with the configured keys or certificates — without touching a real order.
   */
  async function test(scope: Scope, id: number) {
    return configs.test(
      scope,
      id,
      async (row, clear) => {
        const entry = adapters.get(row.channel);
        if (!entry) throw new Error(`no adapter for ${row.channel}`);
        if (row.channel === 'sandbox') return 'The sandbox completes payments locally: there is nothing to reach';
        const secrets = clear ? (JSON.parse(clear) as Record<string, string>) : {};
        const config = entry.toConfig({
          configId: row.id,
          tenantId: row.tenantId,
          fields: row.fields,
          secrets,
          notifyUrl: '',
        });
        const probe = `ATRIUMTEST${randomBytes(8).toString('hex').toUpperCase()}`;
        const started = performance.now();
        const answer = await entry.adapter.queryOrder(config, probe, { createdAt: ctx.clock() });
        const ms = Math.round(performance.now() - started);
        return answer
          ? `The channel answered for probe order ${probe} (${answer.outcome}) in ${ms} ms`
          : `The channel answered, signed, that probe order ${probe} does not exist, in ${ms} ms: credentials and keys work`;
      },
      describeFailure,
    );
  }

  const sealable = (secrets: Record<string, string>) =>
    Object.keys(secrets).length ? JSON.stringify(secrets) : undefined;

  return {
    list: async (scope: Scope, q: PageRequest & { channel?: ChannelCode; status?: Status }) => {
      const page = await configs.repo.page(ctx.db, scope, q, configListFilter(q));
      return { ...page, list: (page.list as ChannelConfigRow[]).map(toChannelConfigView) };
    },

    get: async (scope: Scope, id: number) => toChannelConfigView(await configs.find(scope, id)),

    async create(scope: Scope, input: ChannelConfigCreateInput) {
      const fields = input.fields ?? {};
      const secrets = input.secrets ?? {};
      check(input.channel, fields, secrets);
      const row = await configs.create(
        scope,
        {
          channel: input.channel,
          name: input.name,
          status: input.status ?? 'active',
          remark: input.remark ?? '',
          notifyUrl: input.notifyUrl ?? '',
          fields,
        },
        { secret: sealable(secrets) },
      );
      return toChannelConfigView(row);
    },

    /** Omitted fields are kept; `fields` and `secrets` are merged name by name (an empty string removes one). */
    async update(scope: Scope, id: number, patch: ChannelConfigUpdateInput) {
      const current = await configs.find(scope, id);
      const drop = (o: Record<string, string>) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== ''));
      const fields = drop({ ...current.fields, ...(patch.fields ?? {}) });
      const secrets = patch.secrets ? drop({ ...openSecrets(current), ...patch.secrets }) : openSecrets(current);
      check(current.channel, fields, secrets);
      const { secrets: _s, fields: _f, ...rest } = patch;
      const row = await configs.update(
        scope,
        id,
        { ...rest, fields },
        patch.secrets ? JSON.stringify(secrets) : undefined,
      );
      return toChannelConfigView(row);
    },

    remove: (scope: Scope, id: number) => configs.remove(scope, id),

    test,

    /** The enabled configuration an order uses: the one named, or the channel's first (orders service). */
    async forOrder(scope: Scope, channel: ChannelCode, configId?: number): Promise<ChannelConfigRow> {
      if (configId === undefined) {
        const row = await firstActiveOfChannel(ctx.db, scope, channel);
        if (!row) throw paymentErrors.channelNotConfigured(channel);
        return row;
      }
      const row = (await configs.repo.findById(ctx.db, scope, configId)) as ChannelConfigRow | null;
      if (!row) throw paymentErrors.invalidFields([{ field: 'configId', message: 'no such configuration' }]);
      if (row.channel !== channel) throw paymentErrors.configChannelMismatch();
      if (row.status !== 'active') throw paymentErrors.configDisabled();
      return row;
    },

    /** A configuration by id, whatever its status (a refund or query of an existing order). */
    byId: (scope: Pick<Scope, 'tenantId'>, id: number) => configs.find(scope, id) as Promise<ChannelConfigRow>,
    /** every enabled configuration of the channel in every tenant (callbacks name no tenant) */
    activeAcrossTenants: (channel: ChannelCode) => activeConfigsOfChannelAcrossTenants(ctx.db, channel),
    openSecrets,
    effectiveNotifyUrl,
  };
}

export type ChannelConfigService = ReturnType<typeof createChannelConfigService>;

/** A channel's refusal with its code; anything else (unreachable, refused by the egress policy) as it says. */
function describeFailure(err: unknown): string {
  if (err instanceof ChannelCallError && err.detail.code) return `${err.message} (${err.detail.code})`;
  return err instanceof Error ? err.message : String(err);
}
