import type { Egress } from '../../../../platform/egress/client.ts';
import { EgressError } from '../../../../platform/egress/errors.ts';
import { ChannelCallError, unreachable } from '../types.ts';
import { CHANNEL_B_GATEWAY, type ChannelBConfig, type ChannelBSignType } from './config.ts';
import type { ChannelBKeys } from './keys.ts';
import { signedObjectText } from './response-text.ts';
import { formatChinaTime, signContent, signText, verifyText } from './signature.ts';

/** The business part of a gateway answer: code 10000 is success, 40004 a business failure. */
export type GatewayResult = { code: string; msg?: string; sub_code?: string; sub_msg?: string } & Record<
  string,
  unknown
>;

type CallDeps = { egress: Egress; clock: () => Date };

/**
 * One OpenAPI 2.0 gateway call (https://opendocs.alipay.com/common/02kf5q): the common
 * parameters and `biz_content` signed with the app key, posted as a form; the answer's
 * `<method>_response` verified with the wallet key over its exact text. An answer that cannot be
 * read or verified is a ChannelCallError: the caller records `unknown`, never a guess.
 */
export async function callGateway(
  deps: CallDeps,
  config: ChannelBConfig,
  keys: ChannelBKeys,
  method: string,
  biz: Record<string, unknown>,
  extra: Record<string, string> = {},
): Promise<GatewayResult> {
  const signType = config.signType ?? 'RSA2';
  const params: Record<string, string> = {
    app_id: config.appId,
    method,
    format: 'JSON',
    charset: 'utf-8',
    sign_type: signType,
    timestamp: formatChinaTime(deps.clock()),
    version: '1.0',
    biz_content: JSON.stringify(biz),
    ...extra,
  };
  if (keys.certSn) {
    params.app_cert_sn = keys.certSn.app;
    params.alipay_root_cert_sn = keys.certSn.walletRoot;
  }
  params.sign = signText(signContent(params, ['sign']), keys.appKey, signType);

  let status: number;
  let raw: string;
  try {
    const res = await deps.egress.request(config.baseUrl ?? CHANNEL_B_GATEWAY, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded;charset=utf-8' },
      body: new URLSearchParams(params).toString(),
    });
    status = res.status;
    raw = res.body.toString('utf8');
  } catch (err) {
    if (err instanceof EgressError) throw unreachable(`channel_b ${method}`, err);
    throw new ChannelCallError(`${method}: the gateway could not be reached (${(err as Error).message})`, {
      code: (err as { code?: string }).code ?? 'network_error',
    });
  }
  if (status !== 200) throw new ChannelCallError(`${method}: the gateway answered HTTP ${status}`, { status });
  return readAnswer(raw, method, keys, signType);
}

function readAnswer(raw: string, method: string, keys: ChannelBKeys, signType: ChannelBSignType): GatewayResult {
  const fail = (why: string, code = 'bad_answer') => new ChannelCallError(`${method}: ${why}`, { status: 200, code });
  let parsed: Record<string, unknown>;
  try {
    parsed = JSON.parse(raw) as Record<string, unknown>;
  } catch {
    throw fail('the answer is not JSON');
  }
  const responseKey = `${method.replaceAll('.', '_')}_response`;
  const key = parsed[responseKey] !== undefined ? responseKey : 'error_response';
  const result = parsed[key] as GatewayResult | undefined;
  const text = signedObjectText(raw, key);
  if (!result || typeof result !== 'object' || typeof result.code !== 'string' || !text) {
    throw fail(`the answer has no ${responseKey}`);
  }
  const sign = parsed.sign;
  if (typeof sign !== 'string' || sign === '') {
    // The gateway leaves errors it raises before reaching the app (bad signature, bad app id)
    // unsigned; such an answer can only ever be a failure, never a state to apply.
    if (result.code === '10000') throw fail('a success answer without a signature', 'unsigned_answer');
    throw fail(
      `gateway error ${result.code} ${result.sub_code ?? ''} ${result.sub_msg ?? result.msg ?? ''}`.trim(),
      result.code,
    );
  }
  if (keys.certSn && parsed.alipay_cert_sn !== keys.certSn.wallet) {
    // The wallet rotated its certificate: its key is not the configured one, so nothing verifies.
    throw fail(
      `answer signed for wallet certificate SN ${String(parsed.alipay_cert_sn)}, configured ${keys.certSn.wallet}`,
      'cert_sn_mismatch',
    );
  }
  if (!verifyText(text, sign, keys.walletKey, signType))
    throw fail('the answer signature does not verify', 'bad_signature');
  return result;
}
