import type { Scope } from '../../../platform/auth/principal.ts';
import type { Egress } from '../../../platform/egress/client.ts';
import { AppError, type FieldError, httpErrors } from '../../../platform/http/errors.ts';
import { PROVIDERS } from './providers/index.ts';
import type { SmsProviderName } from './tables.ts';

/** Checks of an SMS configuration's fields that depend on its provider or need the network rules. */
export function checkConfigFields(provider: SmsProviderName, f: { sdkAppId?: string | null; endpoint?: string }): void {
  const details: FieldError[] = [];
  if (provider === 'tencent' && !f.sdkAppId)
    details.push({ field: 'sdkAppId', message: 'is required for Tencent Cloud (SmsSdkAppId)' });
  if (provider === 'aliyun' && f.sdkAppId) details.push({ field: 'sdkAppId', message: 'is not used by Alibaba Cloud' });
  if (f.endpoint !== undefined) {
    const problem = endpointProblem(f.endpoint);
    if (problem) details.push({ field: 'endpoint', message: problem });
  }
  if (details.length) throw httpErrors.validation(details);
}

/** Why an endpoint cannot be used (not an http(s) URL, credentials in it), or null. */
export function endpointProblem(endpoint: string): string | null {
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    return 'must be an http or https URL';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'must be an http or https URL';
  if (url.username || url.password) return 'must not contain credentials';
  return null;
}

/**
 * A tenant's endpoint is checked against the egress rules when saved (each call is checked again).
 * The platform's endpoints are the operator's. A name that does not resolve now may later.
 */
export async function checkEndpointEgress(egress: Egress, scope: Scope, endpoint: string | undefined): Promise<void> {
  if (scope.tenantId === null || endpoint === undefined) return;
  try {
    await egress.check(endpoint);
  } catch (err) {
    if (err instanceof AppError && err.status === 400) throw httpErrors.invalidField('endpoint', err.message);
  }
}

export const defaultsOf = (provider: SmsProviderName) => ({
  endpoint: PROVIDERS[provider].defaultEndpoint,
  region: PROVIDERS[provider].defaultRegion,
});
