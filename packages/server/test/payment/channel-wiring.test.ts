import { describe, expect, it } from 'vitest';
import { channelAConfig, channelBConfig, channelCConfig } from '../../src/modules/payment/channel-wiring.ts';
import { CHANNEL_A_SECRET_FIELDS, channelAConfigSchema } from '../../src/modules/payment/channels/channel-a/config.ts';
import { CHANNEL_B_SECRET_FIELDS } from '../../src/modules/payment/channels/channel-b/config.ts';
import { CHANNEL_C_SECRET_FIELDS, ChannelCConfigSchema } from '../../src/modules/payment/channels/channel-c/config.ts';
import { CHANNEL_FIELDS } from '../../src/modules/payment/configs/fields.ts';
import { checkOrderNo, checkRefundNo } from '../../src/modules/payment/orders/order-numbers.ts';

/** The stored field registry and each adapter's configuration type agree (no database). */
const stored = (fields: Record<string, string>, secrets: Record<string, string>) => ({
  configId: 1,
  tenantId: 1,
  fields,
  secrets,
  notifyUrl: '',
});

describe('channel wiring', () => {
  it('the secret fields of the registry are exactly each adapter’s', () => {
    expect(Object.keys(CHANNEL_FIELDS.channel_a.secrets).sort()).toEqual([...CHANNEL_A_SECRET_FIELDS].sort());
    expect(Object.keys(CHANNEL_FIELDS.channel_b.secrets).sort()).toEqual([...CHANNEL_B_SECRET_FIELDS].sort());
    expect(Object.keys(CHANNEL_FIELDS.channel_c.secrets).sort()).toEqual([...CHANNEL_C_SECRET_FIELDS].sort());
  });

  it('every field of the registry is a property of the adapter’s configuration schema', () => {
    const propsA = Object.keys(channelAConfigSchema.properties);
    const propsC = Object.keys(ChannelCConfigSchema.properties);
    for (const name of [...Object.keys(CHANNEL_FIELDS.channel_a.fields), ...CHANNEL_A_SECRET_FIELDS])
      expect(propsA).toContain(name);
    for (const name of [...Object.keys(CHANNEL_FIELDS.channel_c.fields), ...CHANNEL_C_SECRET_FIELDS])
      expect(propsC).toContain(name);
  });

  it('toConfig: empty optional fields are absent or defaulted; channel_b picks its mode', () => {
    const a = channelAConfig(stored({ mchId: 'm', appId: 'a', merchantSerialNo: 's' }, { apiV3Key: 'k' }));
    expect(a).toMatchObject({ mchId: 'm', platformPublicKeyId: null, baseUrl: undefined });
    expect(channelBConfig(stored({ appId: 'x', walletPublicKey: 'PEM' }, {})).mode).toBe('publicKey');
    const cert = channelBConfig(
      stored({ appId: 'x', appPublicCert: '1', walletPublicCert: '2', walletRootCert: '3' }, {}),
    );
    expect(cert).toMatchObject({ mode: 'cert', signType: 'RSA2' });
    expect(channelCConfig(stored({ merId: '1' }, {})).signerCn).toBe('中国银联股份有限公司');
  });

  it('channel_b configurations hold one whole mode', () => {
    const rule = CHANNEL_FIELDS.channel_b.rule;
    expect(rule?.({ walletPublicKey: 'k' })).toEqual([]);
    expect(rule?.({}).map((e) => e.field)).toEqual(['fields.walletPublicKey']);
    expect(rule?.({ appPublicCert: 'c' }).map((e) => e.field)).toEqual([
      'fields.walletPublicCert',
      'fields.walletRootCert',
    ]);
    expect(rule?.({ walletPublicKey: 'k', signType: 'MD5' }).map((e) => e.field)).toEqual(['fields.signType']);
  });

  it('order and refund numbers every channel takes; generated refund numbers fit all', () => {
    expect(() => checkOrderNo('channel_c', 'A-1234567')).toThrow();
    expect(() => checkOrderNo('channel_c', 'A1234567')).not.toThrow();
    expect(() => checkOrderNo('channel_a', 'A12')).toThrow();
    expect(() => checkOrderNo('channel_b', 'A-1')).toThrow();
    expect(() => checkOrderNo('sandbox', 'A-1')).not.toThrow();
    expect(() => checkRefundNo('channel_c', 'R_1234567')).toThrow();
    for (const channel of ['channel_a', 'channel_b', 'channel_c'] as const)
      expect(() => checkRefundNo(channel, 'RMHX2K3L9A1B2C3D4')).not.toThrow();
  });
});
