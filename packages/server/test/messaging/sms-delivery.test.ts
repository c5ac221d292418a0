import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChannelAdapter } from '../../src/modules/messaging/channels/types.ts';
import { smsSendLogs } from '../../src/modules/messaging/sms/tables.ts';
import { createTestApp, call as rawCall, type TestApp } from '../helpers/app.ts';
import { createVia, expectError, rowCount } from '../helpers/assert.ts';
import { createTenant, createUserWithPermissions, type TenantFixture } from '../helpers/fixtures.ts';
import { type SmsReceiver, smsDelivery, startAliyunReceiver, startTencentReceiver } from './sms-helpers.ts';

/**
 * The sms channel and test sends against local provider receivers that verify each request's
 * signature: Alibaba Cloud (HMAC-SHA1 RPC) and Tencent Cloud (TC3-HMAC-SHA256).
 */
const ALIYUN = { id: 'LTAI-demo', secret: 'aliyun-secret-0123456789' };
const TENCENT = { id: 'AKID-demo', secret: 'tencent-secret-0123456789' };
const PLATFORM = { id: 'LTAI-platform', secret: 'platform-secret-0123456789' };

let t: TestApp;
let aliyun: SmsReceiver;
let tencent: SmsReceiver;
let sms: ChannelAdapter;
let other: TenantFixture;
let aliyunConfig: number;
let tencentConfig: number;
const answers: string[] = [];

/** Every answer is kept: none may ever contain a secret. */
async function call(...args: Parameters<typeof rawCall>) {
  const res = await rawCall(...args);
  answers.push(res.body);
  return res;
}

const logsOf = (dispatchId: number) =>
  t.database.db.select().from(smsSendLogs).where(eq(smsSendLogs.dispatchId, dispatchId));

beforeAll(async () => {
  aliyun = await startAliyunReceiver({ [ALIYUN.id]: ALIYUN.secret, [PLATFORM.id]: PLATFORM.secret });
  tencent = await startTencentReceiver({ [TENCENT.id]: TENCENT.secret });
  t = await createTestApp({ env: { EGRESS_ALLOW_HOSTS: `${aliyun.host},${tencent.host}` } });
  sms = t.app.messaging.channels.get('sms') as ChannelAdapter;
  other = await createTenant(t);
  const token = t.demoAdminToken;
  aliyunConfig = await createVia(t, '/api/sms-configs', token, {
    name: 'Aliyun',
    provider: 'aliyun',
    accessKeyId: ALIYUN.id,
    accessKeySecret: ALIYUN.secret,
    signName: 'Atrium',
    endpoint: aliyun.url,
  });
  tencentConfig = await createVia(t, '/api/sms-configs', token, {
    name: 'Tencent',
    provider: 'tencent',
    accessKeyId: TENCENT.id,
    accessKeySecret: TENCENT.secret,
    signName: 'Atrium',
    sdkAppId: '1400006666',
    region: 'ap-beijing',
    endpoint: tencent.url,
  });
  await createVia(t, '/api/sms-templates', token, {
    code: 'urge',
    name: 'Urge',
    providerTemplateId: 'SMS_153055065',
    content: '{{actorName}} asks you to handle {{taskTitle}} ({{missing}})',
    variables: ['taskTitle', 'actorName', 'missing'],
  });
  await createVia(t, '/api/sms-templates', token, {
    code: 'urge-tencent',
    name: 'Urge via Tencent',
    configId: tencentConfig,
    providerTemplateId: '1110',
    variables: ['actorName', 'taskTitle'],
  });
});

afterAll(async () => {
  await t?.close();
  await aliyun?.close();
  await tencent?.close();
});

describe('sms channel', () => {
  it('is available where an active default configuration applies', async () => {
    expect(await sms.available(t.demoTenantId)).toBe(true);
    // no configuration of its own and none at the platform
    expect(await sms.available(other.tenantId)).toBe(false);
  });

  it('sends through Alibaba Cloud with a verified signature, parameters by name', async () => {
    const before = aliyun.accepted.length;
    // characters the RFC 3986 encoding of the signature treats apart from form encoding
    const variables = { taskTitle: "Expense #42 ~ O'Neil (*) 报销!", processName: 'Expenses', actorName: 'Bob' };
    const [outcome] = await sms.deliver([
      smsDelivery(t.demoTenantId, {}, { smsTemplate: 'urge', dispatchId: 101, variables }),
    ]);
    expect(outcome).toEqual({ status: 'sent', providerMessageId: expect.stringMatching(/^9006\d+\^0$/) });
    expect(aliyun.accepted.length).toBe(before + 1);
    const params = aliyun.accepted.at(-1) as Record<string, string>;
    expect(params).toMatchObject({
      AccessKeyId: ALIYUN.id,
      PhoneNumbers: '13800000000',
      SignName: 'Atrium',
      TemplateCode: 'SMS_153055065',
    });
    // declared names, a missing variable as an empty string
    expect(JSON.parse(params.TemplateParam as string)).toEqual({
      taskTitle: variables.taskTitle,
      actorName: 'Bob',
      missing: '',
    });

    const [log] = await logsOf(101);
    expect(log).toMatchObject({
      tenantId: t.demoTenantId,
      eventKey: 'workflow.task.urged',
      templateCode: 'urge',
      configId: aliyunConfig,
      provider: 'aliyun',
      phone: '13800000000',
      status: 'sent',
      providerMessageId: (outcome as { providerMessageId: string }).providerMessageId,
      error: null,
    });
  });

  it('sends through Tencent Cloud with a verified TC3 signature, parameters by position', async () => {
    const [outcome] = await sms.deliver([
      smsDelivery(t.demoTenantId, { phone: '13900000000' }, { override: 'urge-tencent', dispatchId: 102 }),
    ]);
    expect(outcome).toEqual({ status: 'sent', providerMessageId: expect.stringMatching(/^2640:\d+$/) });
    expect(tencent.accepted.at(-1)).toEqual({
      PhoneNumberSet: ['+8613900000000'],
      SmsSdkAppId: '1400006666',
      SignName: 'Atrium',
      TemplateId: '1110',
      TemplateParamSet: ['Bob', 'Expense #42'],
      region: 'ap-beijing',
    });
    const [log] = await logsOf(102);
    expect(log).toMatchObject({ provider: 'tencent', configId: tencentConfig, status: 'sent' });
  });

  it('a wrong secret fails the signature check: the outcome is failed and logged', async () => {
    await call(t.app, 'PUT', `/api/sms-configs/${aliyunConfig}`, {
      token: t.demoAdminToken,
      body: { accessKeySecret: 'not-the-secret' },
    });
    await call(t.app, 'PUT', `/api/sms-configs/${tencentConfig}`, {
      token: t.demoAdminToken,
      body: { accessKeySecret: 'not-the-secret' },
    });
    const rejected = [aliyun.rejected, tencent.rejected];
    try {
      const outcomes = await sms.deliver([
        smsDelivery(t.demoTenantId, {}, { smsTemplate: 'urge', dispatchId: 103 }),
        smsDelivery(t.demoTenantId, {}, { smsTemplate: 'urge-tencent', dispatchId: 104 }),
      ]);
      expect(outcomes).toEqual([
        { status: 'failed', error: expect.stringContaining('SignatureDoesNotMatch') },
        { status: 'failed', error: expect.stringContaining('AuthFailure.SignatureFailure') },
      ]);
      expect([aliyun.rejected, tencent.rejected]).toEqual([(rejected[0] as number) + 1, (rejected[1] as number) + 1]);
      expect((await logsOf(103))[0]).toMatchObject({ status: 'failed', providerMessageId: null });
      expect((await logsOf(104))[0]?.error).toContain('AuthFailure.SignatureFailure');
    } finally {
      for (const [id, secret] of [
        [aliyunConfig, ALIYUN.secret],
        [tencentConfig, TENCENT.secret],
      ] as const) {
        await call(t.app, 'PUT', `/api/sms-configs/${id}`, {
          token: t.demoAdminToken,
          body: { accessKeySecret: secret },
        });
      }
    }
  });

  it("the provider's error for a number is the failure", async () => {
    aliyun.refuse.add('13700000000');
    tencent.refuse.add('+8613700000000');
    const outcomes = await sms.deliver([
      smsDelivery(t.demoTenantId, { phone: '13700000000' }, { smsTemplate: 'urge', dispatchId: 105 }),
      smsDelivery(t.demoTenantId, { phone: '13700000000' }, { smsTemplate: 'urge-tencent', dispatchId: 106 }),
    ]);
    expect(outcomes).toEqual([
      { status: 'failed', error: 'isv.MOBILE_NUMBER_ILLEGAL: 非法手机号' },
      { status: 'failed', error: expect.stringContaining('LimitExceeded.PhoneNumberDailyLimit') },
    ]);
  });

  it('without a phone the recipient is unreachable and nothing is sent or logged', async () => {
    const sent = aliyun.accepted.length;
    const [outcome] = await sms.deliver([
      smsDelivery(t.demoTenantId, { phone: null }, { smsTemplate: 'urge', dispatchId: 107 }),
    ]);
    expect(outcome).toEqual({ status: 'unreachable', detail: 'no phone number' });
    expect(aliyun.accepted.length).toBe(sent);
    expect(await logsOf(107)).toEqual([]);
  });

  it("an external recipient's address is the number", async () => {
    const [outcome] = await sms.deliver([
      smsDelivery(
        t.demoTenantId,
        { type: 'external', id: null, key: 'e:sms:13600000000', phone: null, address: '13600000000' },
        { smsTemplate: 'urge', dispatchId: 108 },
      ),
    ]);
    expect(outcome?.status).toBe('sent');
    expect((aliyun.accepted.at(-1) as Record<string, string>).PhoneNumbers).toBe('13600000000');
  });

  it('an event without an SMS template cannot be sent by SMS: failed, saying why', async () => {
    const sent = aliyun.accepted.length + tencent.accepted.length;
    const outcomes = await sms.deliver([
      smsDelivery(t.demoTenantId, {}, { dispatchId: 109 }),
      smsDelivery(t.demoTenantId, {}, { smsTemplate: 'no-such-code', dispatchId: 110 }),
    ]);
    expect(outcomes).toEqual([
      { status: 'failed', error: expect.stringContaining('has no SMS template') },
      { status: 'failed', error: 'No active SMS template with the code "no-such-code"' },
    ]);
    expect(aliyun.accepted.length + tencent.accepted.length).toBe(sent);
    expect((await logsOf(109))[0]).toMatchObject({ status: 'failed', templateCode: null, provider: null });
  });

  it("a tenant without its own configuration and template uses the platform's", async () => {
    await createVia(t, '/api/sms-configs', t.adminToken, {
      name: 'Platform',
      provider: 'aliyun',
      accessKeyId: PLATFORM.id,
      accessKeySecret: PLATFORM.secret,
      signName: 'Platform',
      endpoint: aliyun.url,
    });
    await createVia(t, '/api/sms-templates', t.adminToken, {
      code: 'urge',
      name: 'Platform urge',
      providerTemplateId: 'SMS_PLATFORM',
      variables: ['taskTitle'],
    });
    expect(await sms.available(other.tenantId)).toBe(true);
    const [outcome] = await sms.deliver([smsDelivery(other.tenantId, {}, { smsTemplate: 'urge', dispatchId: 111 })]);
    expect(outcome?.status).toBe('sent');
    expect(aliyun.accepted.at(-1)).toMatchObject({ AccessKeyId: PLATFORM.id, TemplateCode: 'SMS_PLATFORM' });
    // logged in the sending tenant
    expect((await logsOf(111))[0]).toMatchObject({ tenantId: other.tenantId, provider: 'aliyun' });
    // the demo tenant still uses its own template of that code
    await sms.deliver([smsDelivery(t.demoTenantId, {}, { smsTemplate: 'urge', dispatchId: 112 })]);
    expect(aliyun.accepted.at(-1)).toMatchObject({ AccessKeyId: ALIYUN.id, TemplateCode: 'SMS_153055065' });
  });
});

describe('POST /api/sms-send-logs/test-send', () => {
  let templateId: number;
  beforeAll(async () => {
    const list = await call(t.app, 'GET', '/api/sms-templates?keyword=urge-tencent', { token: t.demoAdminToken });
    templateId = list.json().data.list[0].id;
  });

  it('sends one SMS and answers its log row', async () => {
    const res = await call(t.app, 'POST', '/api/sms-send-logs/test-send', {
      token: t.demoAdminToken,
      body: { phone: '+85251234567', templateId, variables: { actorName: 'Test', taskTitle: 42 } },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toMatchObject({
      dispatchId: null,
      eventKey: null,
      templateCode: 'urge-tencent',
      provider: 'tencent',
      phone: '+85251234567',
      status: 'sent',
      providerMessageId: expect.stringMatching(/^2640:/),
      error: null,
    });
    expect(tencent.accepted.at(-1)).toMatchObject({
      PhoneNumberSet: ['+85251234567'],
      TemplateParamSet: ['Test', '42'],
    });
    const one = await call(t.app, 'GET', `/api/sms-send-logs/${res.json().data.id}`, { token: t.demoAdminToken });
    expect(one.json().data.status).toBe('sent');
  });

  it("a provider's refusal is a failed row, not an HTTP error", async () => {
    tencent.refuse.add('+8613500000000');
    const res = await call(t.app, 'POST', '/api/sms-send-logs/test-send', {
      token: t.demoAdminToken,
      body: { phone: '13500000000', templateId },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toMatchObject({ status: 'failed', error: expect.stringContaining('LimitExceeded') });
  });

  it('bad input, another tenant’s template and a missing permission write nothing', async () => {
    const before = await rowCount(t, smsSendLogs);
    const bad = await call(t.app, 'POST', '/api/sms-send-logs/test-send', {
      token: t.demoAdminToken,
      body: { phone: 'call me', templateId },
    });
    expectError(bad, 400, 'request.validation_failed', 'phone');
    const missing = await call(t.app, 'POST', '/api/sms-send-logs/test-send', {
      token: t.demoAdminToken,
      body: { phone: '13800000000' },
    });
    expectError(missing, 400, 'request.validation_failed', 'templateId');
    const foreign = await call(t.app, 'POST', '/api/sms-send-logs/test-send', {
      token: other.adminToken,
      body: { phone: '13800000000', templateId },
    });
    expectError(foreign, 400, 'request.validation_failed', 'templateId');
    const reader = await createUserWithPermissions(t, ['system:sms-send-log:list']);
    const denied = await call(t.app, 'POST', '/api/sms-send-logs/test-send', {
      token: reader.token,
      body: { phone: '13800000000', templateId },
    });
    expectError(denied, 403, 'auth.permission_denied');
    expect(await rowCount(t, smsSendLogs)).toBe(before);
  });

  it('a tenant cannot point a configuration at a blocked address', async () => {
    const res = await call(t.app, 'POST', '/api/sms-configs', {
      token: t.demoAdminToken,
      body: {
        name: 'Internal',
        provider: 'aliyun',
        accessKeyId: 'x',
        accessKeySecret: 'y',
        signName: 'z',
        endpoint: 'http://169.254.169.254/',
      },
    });
    expectError(res, 400, 'request.validation_failed', 'endpoint');
  });

  it('no answer ever contained a secret', () => {
    for (const body of answers) {
      for (const secret of [ALIYUN.secret, TENCENT.secret, PLATFORM.secret, 'not-the-secret']) {
        expect(body).not.toContain(secret);
      }
    }
  });
});
