import type { SmsProviderName } from '../tables.ts';
import { aliyun } from './aliyun.ts';
import { tencent } from './tencent.ts';
import type { SmsProvider } from './types.ts';

export const PROVIDERS: Record<SmsProviderName, SmsProvider> = { aliyun, tencent };
