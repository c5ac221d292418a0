import type { Scope } from '../../../platform/auth/principal.ts';
import type { AppContext } from '../../../platform/context.ts';
import type { PageRequest } from '../../../platform/db/scoped.ts';
import { onUniqueViolation, rowOrThrow } from '../../../platform/db/sql.ts';
import { httpErrors } from '../../../platform/http/errors.ts';
import { templateVariables } from '../render.ts';
import * as configRepo from './config-repository.ts';
import { smsErrors } from './errors.ts';
import * as repo from './template-repository.ts';

type Status = 'active' | 'disabled';
export type SmsTemplateInput = {
  code: string;
  name: string;
  configId?: number | null;
  providerTemplateId: string;
  content?: string;
  variables?: string[];
  status?: Status;
  remark?: string;
};

export function toSmsTemplateView(row: repo.SmsTemplateRow) {
  const { tenantId: _tenant, ...rest } = row;
  return rest;
}

/**
 * SMS templates. A template names the provider-side template and its parameters; it sends with
 * the configuration it names (of the same tenant) or, without one, the default configuration.
 */
export function createSmsTemplateService(ctx: AppContext) {
  const { db, clock } = ctx;

  const findOrThrow = (scope: Scope, id: number) =>
    rowOrThrow(repo.templates.findById(db, scope, id), smsErrors.templateNotFound);

  /** A configuration id must name one of the caller's own configurations. */
  async function checkConfig(scope: Scope, configId: number | null | undefined) {
    if (configId === undefined || configId === null) return;
    if (!(await configRepo.configs.findById(db, scope, configId)))
      throw httpErrors.invalidField('configId', 'no such SMS configuration');
  }

  const write = <T>(fn: () => Promise<T>) => onUniqueViolation(fn, () => smsErrors.templateCodeExists());

  return {
    async list(scope: Scope, q: PageRequest & { keyword?: string; status?: Status }) {
      const page = await repo.pageTemplates(db, scope, q);
      return { ...page, list: page.list.map(toSmsTemplateView) };
    },

    get: async (scope: Scope, id: number) => toSmsTemplateView(await findOrThrow(scope, id)),

    async create(scope: Scope, input: SmsTemplateInput) {
      await checkConfig(scope, input.configId);
      const now = clock();
      const content = input.content ?? '';
      const row = await write(() =>
        repo.templates.insert(db, scope, {
          code: input.code,
          name: input.name,
          configId: input.configId ?? null,
          providerTemplateId: input.providerTemplateId,
          content,
          variables: input.variables ?? templateVariables(content),
          status: input.status ?? 'active',
          remark: input.remark ?? '',
          createdAt: now,
          updatedAt: now,
        }),
      );
      return toSmsTemplateView(row);
    },

    async update(scope: Scope, id: number, patch: Partial<SmsTemplateInput>) {
      await findOrThrow(scope, id);
      await checkConfig(scope, patch.configId);
      const row = await write(() => repo.templates.update(db, scope, id, { ...patch, updatedAt: clock() }));
      if (!row) throw smsErrors.templateNotFound();
      return toSmsTemplateView(row);
    },

    async remove(scope: Scope, id: number) {
      const deleted = await repo.templates.deleteMany(db, scope, [id]);
      if (deleted.length === 0) throw smsErrors.templateNotFound();
    },
  };
}

export type SmsTemplateService = ReturnType<typeof createSmsTemplateService>;
