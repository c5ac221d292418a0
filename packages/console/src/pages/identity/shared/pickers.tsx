import { useQuery } from '@tanstack/react-query';
import { Select } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { api, unwrap } from '../../../api/client';
import { useMayCall } from '../../../app/me';

export type TreeNode = { id: number; name: string; children: TreeNode[] };
/** The department tree: one call (departments are few compared with users). */
export function useDepartmentTree(enabled = true) {
  const may = useMayCall();
  return useQuery({
    queryKey: ['identity', 'departments', 'tree'],
    queryFn: () => unwrap(api.GET('/api/departments')),
    enabled: enabled && may('identity.department.tree'),
    staleTime: 30_000,
  });
}

/** Each department's name by id, for lists that show a user's department. */
export function departmentNames(nodes: TreeNode[] | undefined, into = new Map<number, string>()) {
  for (const n of nodes ?? []) {
    into.set(n.id, n.name);
    departmentNames(n.children, into);
  }
  return into;
}

export type PickerProps<V> = { value?: V; onChange?: (v: V) => void; id?: string; 'aria-label'?: string };

/**
 * Roles or positions to pick from: searched on the server by keyword, one page at a time, so a
 * tenant with many never loads them all; the chosen ones keep their names from `known`.
 */
function useSearchable(kind: 'roles' | 'positions', keyword: string) {
  const may = useMayCall();
  const operation = kind === 'roles' ? 'identity.role.list' : 'identity.position.list';
  return useQuery({
    queryKey: ['identity', kind, 'pick', keyword],
    queryFn: () =>
      unwrap(
        api.GET(kind === 'roles' ? '/api/roles' : '/api/positions', {
          params: { query: { page: 1, pageSize: 50, ...(keyword ? { keyword } : {}) } },
        }),
      ),
    enabled: may(operation),
    staleTime: 30_000,
  });
}

function SearchPicker({
  kind,
  multiple,
  ...props
}: PickerProps<number[] | number | undefined> & { kind: 'roles' | 'positions'; multiple?: boolean }) {
  const { t } = useTranslation('identity');
  const [keyword, setKeyword] = useState('');
  const [known, setKnown] = useState(new Map<number, string>());
  const found = useSearchable(kind, keyword);
  const options = new Map(known);
  for (const r of found.data?.list ?? []) options.set(r.id, r.name);
  return (
    <Select
      {...props}
      mode={multiple ? 'multiple' : undefined}
      allowClear
      showSearch={{ filterOption: false, onSearch: setKeyword }}
      loading={found.isFetching}
      placeholder={t(kind === 'roles' ? 'pick.roles' : 'pick.positions')}
      options={[...options].map(([value, label]) => ({ value, label }))}
      onChange={(v) => {
        setKnown(options);
        props.onChange?.(v as number[] | number | undefined);
      }}
      style={{ minWidth: 200 }}
    />
  );
}

export const RolePicker = (p: PickerProps<number[]>) => (
  <SearchPicker kind="roles" multiple {...(p as PickerProps<number[] | number | undefined>)} />
);
export const RoleFilter = (p: PickerProps<number | undefined>) => (
  <SearchPicker kind="roles" {...(p as PickerProps<number[] | number | undefined>)} />
);
export const PositionPicker = (p: PickerProps<number[]>) => (
  <SearchPicker kind="positions" multiple {...(p as PickerProps<number[] | number | undefined>)} />
);

/**
 * The list's department filter: a plain select of the tree flattened and indented, lighter than
 * a tree select (the list page keeps within its size budget; the form has the tree).
 */
export function DepartmentFilter(props: PickerProps<number | null>) {
  const { t } = useTranslation('identity');
  const tree = useDepartmentTree();
  const options: { value: number; label: string }[] = [];
  const walk = (nodes: TreeNode[], depth: number) => {
    for (const n of nodes) {
      options.push({ value: n.id, label: `${'\u3000'.repeat(depth)}${n.name}` });
      walk(n.children, depth + 1);
    }
  };
  walk(tree.data ?? [], 0);
  return (
    <Select
      {...props}
      value={props.value ?? undefined}
      allowClear
      showSearch={{ optionFilterProp: 'label' }}
      loading={tree.isPending}
      placeholder={t('pick.department')}
      options={options}
      onChange={(v) => props.onChange?.(v ?? null)}
      style={{ minWidth: 200 }}
    />
  );
}
