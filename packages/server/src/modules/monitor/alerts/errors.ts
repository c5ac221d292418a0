import { AppError } from '../../../platform/http/errors.ts';

/** Errors of alert rules (`monitor.alert_*`). */
export const alertErrors = {
  notFound: () => new AppError(404, 'monitor.alert_rule_not_found', 'Alert rule not found'),
  /** spec §4.6 rule 7 / §7.2: the rule's channel settings cannot deliver */
  invalidRule: (field: string, message: string) =>
    new AppError(400, 'monitor.alert_rule_invalid', `The alert rule cannot be enabled: ${message}`, {
      details: [{ field, message }],
    }),
};
