import { singleConfigRepository } from '../../../platform/provider-configs/index.ts';
import { emailConfigs } from './tables.ts';

/** Queries of email configurations: the kit's, one row per scope, the platform's as fallback. */
export const configs = singleConfigRepository(emailConfigs);
export type EmailConfigRow = typeof emailConfigs.$inferSelect;
