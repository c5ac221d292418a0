import type { Scope } from '../../../platform/auth/principal.ts';
import type { Db } from '../../../platform/db/client.ts';
import type { Egress } from '../../../platform/egress/client.ts';
import { AppError, type FieldError, httpErrors } from '../../../platform/http/errors.ts';
import { httpUrlProblem } from '../url-rules.ts';
import type { WebhookEventRegistry } from './events.ts';
import { appOf } from './repository.ts';

/**
 * The checks of a subscription's fields that need the catalog, the database or the network rules;
 * every problem is reported at once. The destination is checked against the egress rules when
 * saved, for early feedback; each send is checked again (DNS can change). A name that does not
 * resolve now may later, so only refusals count here.
 */
export async function checkSubscriptionFields(
  deps: { db: Db; egress: Egress; events: WebhookEventRegistry },
  scope: Scope,
  f: { appId?: number; url?: string; events?: string[] },
): Promise<void> {
  const details: FieldError[] = [];
  if (f.appId !== undefined && !(await appOf(deps.db, scope, f.appId))) {
    details.push({ field: 'appId', message: 'no such application in this tenant' });
  }
  if (f.url !== undefined) {
    const problem = httpUrlProblem(f.url);
    if (problem) details.push({ field: 'url', message: problem });
    else {
      try {
        await deps.egress.check(f.url);
      } catch (err) {
        if (err instanceof AppError && err.status === 400) details.push({ field: 'url', message: err.message });
      }
    }
  }
  f.events?.forEach((entry, i) => {
    const problem = deps.events.problem(entry);
    if (problem) details.push({ field: `events.${i}`, message: problem });
  });
  if (details.length) throw httpErrors.validation(details);
}
