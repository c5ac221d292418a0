import type { Egress, EgressMethod } from '../../../../platform/egress/client.ts';
import { EgressError } from '../../../../platform/egress/errors.ts';
import { unreachable } from '../types.ts';
import { type ChannelAConfig, channelABaseUrl } from './config.ts';
import { authorizationHeader } from './signature.ts';

/** One signed v3 request, its answer unverified (api.ts and platform-keys.ts verify it, each with its key). */
export type RawAnswer = { status: number; headers: Record<string, string>; body: string };

/** The channel answers within seconds; a callback handler or a query job must not wait longer. */
const CALL_TIMEOUT_MS = 10_000;

export async function sendSigned(
  egress: Egress,
  config: ChannelAConfig,
  request: { method: EgressMethod; pathAndQuery: string; body?: unknown; now: Date },
): Promise<RawAnswer> {
  const body = request.body === undefined ? '' : JSON.stringify(request.body);
  const headers: Record<string, string> = {
    accept: 'application/json',
    authorization: authorizationHeader(config, {
      method: request.method,
      pathAndQuery: request.pathAndQuery,
      body,
      now: request.now,
    }),
  };
  if (body) headers['content-type'] = 'application/json';
  try {
    const res = await egress.request(`${channelABaseUrl(config)}${request.pathAndQuery}`, {
      method: request.method,
      headers,
      body: body || undefined,
      timeoutMs: CALL_TIMEOUT_MS,
      maxRedirects: 0,
    });
    return { status: res.status, headers: res.headers, body: res.body.toString('utf8') };
  } catch (err) {
    if (err instanceof EgressError) throw unreachable('channel_a', err);
    throw err;
  }
}
