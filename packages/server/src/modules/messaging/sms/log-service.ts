import type { Scope } from '../../../platform/auth/principal.ts';
import type { AppContext } from '../../../platform/context.ts';
import { httpErrors } from '../../../platform/http/errors.ts';
import { smsErrors } from './errors.ts';
import * as repo from './log-repository.ts';
import type { SmsSender } from './sender.ts';
import { templates } from './template-repository.ts';

/** SMS send logs: reading, deleting, and a test send through one of the caller's templates. */
export function createSmsLogService(ctx: AppContext, sender: SmsSender) {
  const { db } = ctx;

  return {
    async list(scope: Scope, q: repo.SmsSendLogQuery) {
      const page = await repo.pageLogs(db, scope, q);
      return { ...page, list: page.list.map(repo.toSmsLogView) };
    },

    async get(scope: Scope, id: number) {
      const row = await repo.logs.findById(db, scope, id);
      if (!row) throw smsErrors.sendLogNotFound();
      return repo.toSmsLogView(row);
    },

    async remove(scope: Scope, id: number) {
      const deleted = await repo.logs.deleteMany(db, scope, [id]);
      if (deleted.length === 0) throw smsErrors.sendLogNotFound();
    },

    /**
     * Sends the template (whatever its status: templates are tested before they go live) to one
     * number and answers the log row; a provider refusal is a `failed` row, not an HTTP error.
     */
    async testSend(scope: Scope, input: { phone: string; templateId: number; variables?: Record<string, unknown> }) {
      const template = await templates.findById(db, scope, input.templateId);
      if (!template) throw httpErrors.invalidField('templateId', 'no such SMS template');
      const row = await sender.send(
        {
          tenantId: scope.tenantId,
          phone: input.phone,
          templateCode: template.code,
          variables: input.variables ?? {},
          dispatchId: null,
          eventKey: null,
        },
        template,
      );
      return repo.toSmsLogView(row);
    },
  };
}

export type SmsLogService = ReturnType<typeof createSmsLogService>;
