import type { Scope } from '../../../platform/auth/principal.ts';
import type { AppContext } from '../../../platform/context.ts';
import type { PageRequest } from '../../../platform/db/scoped.ts';
import { type FieldError, httpErrors } from '../../../platform/http/errors.ts';
import { renderEmailTemplate } from './compose.ts';
import { toSendResultView } from './config-service.ts';
import { emailErrors } from './errors.ts';
import * as repo from './send-log-repository.ts';
import type { EmailSender } from './sender.ts';
import { templateRows } from './template-repository.ts';

export type TestSendInput = {
  to: string;
  templateId?: number;
  subject?: string;
  content?: string;
  variables?: Record<string, string | number | boolean>;
};

/** Email send logs of the caller's scope, and the administrator's test send that writes one. */
export function createEmailSendLogService(ctx: AppContext, sender: EmailSender) {
  const { db } = ctx;

  /** A template of this scope, or the given subject and content: one or the other, never both. */
  async function textOf(scope: Scope, input: TestSendInput) {
    if (input.templateId !== undefined) {
      const clash = (['subject', 'content'] as const).filter((f) => input[f] !== undefined);
      if (clash.length) {
        throw httpErrors.validation(
          clash.map((field) => ({ field, message: 'is not allowed together with templateId' })),
        );
      }
      const template = await templateRows.findById(db, scope, input.templateId);
      if (!template) throw httpErrors.invalidField('templateId', 'no such email template');
      return template;
    }
    const missing: FieldError[] = (['subject', 'content'] as const)
      .filter((f) => input[f] === undefined)
      .map((field) => ({ field, message: 'is required without templateId' }));
    if (missing.length) throw httpErrors.validation(missing);
    return { code: null, subject: input.subject as string, content: input.content as string };
  }

  return {
    list: (scope: Scope, q: PageRequest & repo.SendLogFilter) => repo.pageSendLogs(db, scope, q),

    async get(scope: Scope, id: number) {
      const row = await repo.sendLogRows.findById(db, scope, id);
      if (!row) throw emailErrors.sendLogNotFound();
      return row;
    },

    async remove(scope: Scope, id: number) {
      const [deleted] = await repo.sendLogRows.deleteMany(db, scope, [id]);
      if (deleted === undefined) throw emailErrors.sendLogNotFound();
    },

    /** All or nothing: one id missing from the caller's scope and nothing is deleted. */
    async removeMany(scope: Scope, ids: number[]) {
      return db.transaction(async (tx) => {
        const deleted = await repo.sendLogRows.deleteMany(tx, scope, ids);
        if (deleted.length !== ids.length) throw emailErrors.sendLogNotFound(ids.filter((id) => !deleted.includes(id)));
        return { affected: ids };
      });
    },

    /** Renders and sends one mail with the scope's effective configuration; the answer names the SMTP outcome. */
    async testSend(scope: Scope, input: TestSendInput) {
      const text = await textOf(scope, input);
      const rendered = renderEmailTemplate(text, input.variables ?? {}, null);
      const result = await sender.sendOne(scope.tenantId, {
        to: { address: input.to },
        ...rendered,
        log: { dispatchId: null, eventKey: null, templateCode: text.code },
      });
      return toSendResultView(result);
    },
  };
}

export type EmailSendLogService = ReturnType<typeof createEmailSendLogService>;
