import type { Scope } from '../../../platform/auth/principal.ts';
import type { AppContext } from '../../../platform/context.ts';
import { onUniqueViolation, rowOrThrow } from '../../../platform/db/sql.ts';
import { type FieldError, httpErrors } from '../../../platform/http/errors.ts';
import { templateVariables } from '../render.ts';
import { inAppErrors } from './errors.ts';
import type { InAppMessageType } from './tables.ts';
import * as repo from './template-repository.ts';

type Status = 'active' | 'disabled';
export type TemplateInput = {
  code: string;
  title: string;
  content: string;
  type?: InAppMessageType;
  variables?: string[];
  status?: Status;
  remark?: string;
};

/**
 * Every placeholder of the title and the content must be a declared variable (the root of a
 * dotted path), so a sender knows what to pass. The error names the field the request changed:
 * the text when it was given, else `variables` (a declared variable removed while still in use).
 */
export function checkPlaceholders(t: { title: string; content: string; variables: string[] }, given: object) {
  const declared = new Set(t.variables);
  const errors: FieldError[] = [];
  for (const field of ['title', 'content'] as const) {
    const undeclared = templateVariables(t[field]).filter((name) => !declared.has(name.split('.')[0] as string));
    if (undeclared.length === 0) continue;
    errors.push({
      field: field in given ? field : 'variables',
      message: `${field} uses undeclared variables: ${undeclared.join(', ')}`,
    });
  }
  if (errors.length) throw httpErrors.validation(errors);
}

/** In-app templates of the caller's tenant (platform scope: the platform's, which tenants fall back to). */
export function createTemplateService(ctx: AppContext) {
  const { db, clock } = ctx;

  const findOrThrow = (scope: Scope, id: number) =>
    rowOrThrow(repo.templateRows.findById(db, scope, id), inAppErrors.templateNotFound);

  const write = <T>(fn: () => Promise<T>) => onUniqueViolation(fn, () => inAppErrors.templateCodeExists());

  return {
    list: (scope: Scope, q: Parameters<typeof repo.pageTemplates>[2]) => repo.pageTemplates(db, scope, q),
    get: findOrThrow,

    async create(scope: Scope, input: TemplateInput) {
      const variables = input.variables ?? [];
      checkPlaceholders({ ...input, variables }, input);
      const now = clock();
      return write(() =>
        repo.templateRows.insert(db, scope, {
          code: input.code,
          title: input.title,
          content: input.content,
          type: input.type ?? 'notification',
          variables,
          status: input.status ?? 'active',
          remark: input.remark ?? '',
          createdAt: now,
          updatedAt: now,
        }),
      );
    },

    async update(scope: Scope, id: number, patch: Partial<TemplateInput>) {
      const current = await findOrThrow(scope, id);
      checkPlaceholders({ ...current, ...patch }, patch);
      const row = await write(() => repo.templateRows.update(db, scope, id, { ...patch, updatedAt: clock() }));
      if (!row) throw inAppErrors.templateNotFound();
      return row;
    },

    /** Messages written from the template keep their text; their template id becomes null. */
    async remove(scope: Scope, id: number) {
      const [deleted] = await repo.templateRows.deleteMany(db, scope, [id]);
      if (deleted === undefined) throw inAppErrors.templateNotFound();
    },
  };
}

export type TemplateService = ReturnType<typeof createTemplateService>;
