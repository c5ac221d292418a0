import type { Scope } from '../../../platform/auth/principal.ts';
import type { AppContext } from '../../../platform/context.ts';
import type { PageRequest } from '../../../platform/db/scoped.ts';
import { onUniqueViolation, rowOrThrow } from '../../../platform/db/sql.ts';
import { type FieldError, httpErrors } from '../../../platform/http/errors.ts';
import { templateVariables } from '../render.ts';
import { emailErrors } from './errors.ts';
import * as repo from './template-repository.ts';

type Status = 'active' | 'disabled';
export type EmailTemplateInput = {
  code: string;
  name: string;
  subject: string;
  content: string;
  variables?: string[];
  status?: Status;
  remark?: string;
};

/**
 * Every `{{placeholder}}` of the subject and content must be declared in `variables` (a dotted
 * `{{order.no}}` is covered by declaring `order`), so an administrator sees a typo when saving,
 * not as a blank in a sent mail.
 */
export function checkPlaceholders(t: Pick<EmailTemplateInput, 'subject' | 'content'>, variables: string[]) {
  const declared = new Set(variables);
  const details: FieldError[] = [];
  for (const field of ['subject', 'content'] as const) {
    const undeclared = templateVariables(t[field]).filter(
      (name) => !declared.has(name) && !declared.has(name.split('.')[0] as string),
    );
    if (undeclared.length) {
      details.push({ field, message: `uses undeclared variables ${undeclared.join(', ')}; add them to variables` });
    }
  }
  if (details.length) throw httpErrors.validation(details);
}

/** Email templates of the caller's scope (tenant or platform). */
export function createEmailTemplateService(ctx: AppContext) {
  const { db, clock } = ctx;

  const findOrThrow = (scope: Scope, id: number) =>
    rowOrThrow(repo.templateRows.findById(db, scope, id), emailErrors.templateNotFound);

  const write = <T>(fn: () => Promise<T>) => onUniqueViolation(fn, () => emailErrors.templateCodeExists());

  return {
    list: (scope: Scope, q: PageRequest & { keyword?: string; status?: Status }) => repo.pageTemplates(db, scope, q),
    get: findOrThrow,

    async create(scope: Scope, input: EmailTemplateInput) {
      const variables = input.variables ?? [];
      checkPlaceholders(input, variables);
      const now = clock();
      return write(() => repo.templateRows.insert(db, scope, { ...input, variables, createdAt: now, updatedAt: now }));
    },

    async update(scope: Scope, id: number, patch: Partial<EmailTemplateInput>) {
      const current = await findOrThrow(scope, id);
      const merged = { ...current, ...patch };
      checkPlaceholders(merged, merged.variables);
      const row = await write(() => repo.templateRows.update(db, scope, id, { ...patch, updatedAt: clock() }));
      if (!row) throw emailErrors.templateNotFound();
      return row;
    },

    async remove(scope: Scope, id: number) {
      const [deleted] = await repo.templateRows.deleteMany(db, scope, [id]);
      if (deleted === undefined) throw emailErrors.templateNotFound();
    },
  };
}

export type EmailTemplateService = ReturnType<typeof createEmailTemplateService>;
