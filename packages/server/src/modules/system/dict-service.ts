import type { Scope } from '../../platform/auth/principal.ts';
import type { AppContext } from '../../platform/context.ts';
import { isForeignKeyViolation, onUniqueViolation, rowOrThrow } from '../../platform/db/sql.ts';
import { httpErrors } from '../../platform/http/errors.ts';
import * as repo from './dict-repository.ts';
import { systemErrors } from './errors.ts';

type Status = 'active' | 'disabled';
export type DictTypeInput = { code: string; name: string; status?: Status; remark?: string };
export type DictItemInput = {
  typeId: number;
  label: string;
  value: string;
  sort?: number;
  status?: Status;
  remark?: string;
};

/** Dictionary types and items of the caller's tenant; the platform's types are the fallback for forms. */
export function createDictService(ctx: AppContext) {
  const { db, clock } = ctx;

  const typeOrThrow = (scope: Scope, id: number) =>
    rowOrThrow(repo.types.findById(db, scope, id), () => systemErrors.notFound('dict_type'));

  const itemOrThrow = (scope: Scope, id: number) =>
    rowOrThrow(repo.items.findById(db, scope, id), () => systemErrors.notFound('dict_item'));

  /** An item may only hang under a type of the caller's own tenant. */
  async function assertTypeInScope(scope: Scope, typeId: number) {
    if (!(await repo.types.findById(db, scope, typeId))) {
      throw httpErrors.invalidField('typeId', 'no dictionary type with this id');
    }
  }

  const writeType = <T>(fn: () => Promise<T>) =>
    onUniqueViolation(fn, () => systemErrors.conflict('dict_type', 'code'));

  async function writeItem<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await onUniqueViolation(fn, () => systemErrors.conflict('dict_item', 'value'));
    } catch (err) {
      // The type was deleted between the check and the write.
      if (isForeignKeyViolation(err)) throw httpErrors.invalidField('typeId', 'no dictionary type with this id');
      throw err;
    }
  }

  return {
    listTypes: (scope: Scope, q: Parameters<typeof repo.pageTypes>[2]) => repo.pageTypes(db, scope, q),
    getType: typeOrThrow,
    createType: (scope: Scope, input: DictTypeInput) => writeType(() => repo.types.insert(db, scope, input)),

    async updateType(scope: Scope, id: number, patch: Partial<DictTypeInput>) {
      if (Object.keys(patch).length === 0) return typeOrThrow(scope, id);
      const row = await writeType(() => repo.types.update(db, scope, id, { ...patch, updatedAt: clock() }));
      if (!row) throw systemErrors.notFound('dict_type');
      return row;
    },

    /** Deletes the type and (by cascade) its items. */
    async deleteType(scope: Scope, id: number) {
      const [deleted] = await repo.types.deleteMany(db, scope, [id]);
      if (deleted === undefined) throw systemErrors.notFound('dict_type');
    },

    /**
     * Active items of the type with this code, for form selects: the tenant's own active type
     * wins, the platform's is the fallback (ADR 0042: platform rows have tenant_id 0, read as null).
     */
    async optionsByCode(scope: Scope, code: string) {
      const levels = scope.tenantId === null ? [null] : [scope.tenantId, null];
      for (const tenantId of levels) {
        const type = await repo.activeTypeByCode(db, { tenantId }, code);
        if (type) return repo.activeItemsOf(db, { tenantId }, type.id);
      }
      throw systemErrors.notFound('dict_type');
    },

    listItems: (scope: Scope, q: Parameters<typeof repo.pageItems>[2]) => repo.pageItems(db, scope, q),
    getItem: itemOrThrow,

    async createItem(scope: Scope, input: DictItemInput) {
      await assertTypeInScope(scope, input.typeId);
      return writeItem(() => repo.items.insert(db, scope, input));
    },

    async updateItem(scope: Scope, id: number, patch: Partial<DictItemInput>) {
      // Existence first: another tenant's item is a 404 whatever the body says.
      const current = await itemOrThrow(scope, id);
      if (Object.keys(patch).length === 0) return current;
      if (patch.typeId !== undefined) await assertTypeInScope(scope, patch.typeId);
      const row = await writeItem(() => repo.items.update(db, scope, id, { ...patch, updatedAt: clock() }));
      if (!row) throw systemErrors.notFound('dict_item');
      return row;
    },

    async deleteItem(scope: Scope, id: number) {
      const [deleted] = await repo.items.deleteMany(db, scope, [id]);
      if (deleted === undefined) throw systemErrors.notFound('dict_item');
    },
  };
}

export type DictService = ReturnType<typeof createDictService>;
