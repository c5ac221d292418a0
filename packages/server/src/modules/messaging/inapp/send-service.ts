import { type Scope, userOf } from '../../../platform/auth/principal.ts';
import type { AppContext } from '../../../platform/context.ts';
import { type FieldError, httpErrors } from '../../../platform/http/errors.ts';
import type { MessagingDeps } from '../deps.ts';
import { renderTemplate } from '../render.ts';
import { pushNewMessages } from './live-push.ts';
import { insertMessages } from './message-repository.ts';
import type { InAppMessageType } from './tables.ts';
import { type TemplateRow, templateRows } from './template-repository.ts';

export type SendInput = {
  userIds: number[];
  templateId?: number;
  title?: string;
  content?: string;
  variables?: Record<string, string | number | boolean>;
  type?: InAppMessageType;
  link?: string;
};

/** The text of a manual send: an active template of the caller's tenant, or a title and content. */
async function textOf(ctx: AppContext, scope: Scope, input: SendInput) {
  const variables = input.variables ?? {};
  if (input.templateId === undefined) {
    const { title, content } = input;
    if (title === undefined || content === undefined) {
      const missing = (['title', 'content'] as const).filter((field) => input[field] === undefined);
      throw httpErrors.validation(missing.map((field) => ({ field, message: 'is required without templateId' })));
    }
    return { template: null, title: renderTemplate(title, variables), content: renderTemplate(content, variables) };
  }
  const clash: FieldError[] = [];
  for (const field of ['title', 'content'] as const) {
    if (input[field] !== undefined) clash.push({ field, message: 'cannot be given with templateId' });
  }
  if (clash.length) throw httpErrors.validation(clash);
  const template: TemplateRow | null = await templateRows.findById(ctx.db, scope, input.templateId);
  if (!template) throw httpErrors.invalidField('templateId', 'no in-app template with this id in your tenant');
  if (template.status !== 'active') throw httpErrors.invalidField('templateId', 'the template is disabled');
  const absent = template.variables.filter((name) => variables[name] === undefined);
  if (absent.length) {
    throw httpErrors.validation(
      absent.map((name) => ({ field: `variables.${name}`, message: 'is required by the template' })),
    );
  }
  return {
    template,
    title: renderTemplate(template.title, variables),
    content: renderTemplate(template.content, variables),
  };
}

/**
 * An administrator's send (spec §4.4 POST /api/in-app-messages/send): one message per user of the
 * caller's tenant, written in one insert, then one live push. Any unknown user id (or one of
 * another tenant) refuses the whole send and writes nothing.
 */
export function createSendService(ctx: AppContext, deps: MessagingDeps) {
  return async function send(scope: Scope, input: SendInput): Promise<{ ids: number[] }> {
    const text = await textOf(ctx, scope, input);
    const known = new Set((await deps.userContacts(scope.tenantId, input.userIds)).map((u) => u.id));
    const unknown = input.userIds.filter((id) => !known.has(id));
    if (unknown.length) {
      throw httpErrors.validation(
        unknown.map((id) => ({ field: 'userIds', message: `no user with id ${id} in your tenant` })),
      );
    }
    const type = input.type ?? text.template?.type ?? 'manual';
    const link = input.link ?? null;
    const written = await insertMessages(
      ctx.db,
      input.userIds.map((userId) => ({
        tenantId: scope.tenantId,
        userId,
        templateId: text.template?.id ?? null,
        title: text.title,
        content: text.content,
        type,
        source: 'manual',
        senderId: userOf(scope)?.userId ?? null,
        link,
      })),
    );
    await pushNewMessages(
      ctx,
      scope.tenantId,
      written.map((m) => ({ userId: m.userId, eventKey: null, title: text.title, link, type })),
    );
    const idOf = new Map(written.map((m) => [m.userId, m.id]));
    // no dedupe key on a manual send, so every row was written
    return { ids: input.userIds.flatMap((userId) => idOf.get(userId) ?? []) };
  };
}

export type SendService = ReturnType<typeof createSendService>;
