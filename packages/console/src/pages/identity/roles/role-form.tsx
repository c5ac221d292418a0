import { useQuery } from '@tanstack/react-query';
import { Form, Input, InputNumber, Tabs, Tree } from 'antd';
import { type Key, useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { api, unwrap } from '../../../api/client';
import { FormDialog } from '../../../components/form-dialog';
import { type MenuTreeNode, menuTreeData, useMenuTree } from '../shared/trees';
import { StatusField } from '../shared/view';

type Values = { code: string; name: string; status: 'active' | 'disabled'; sort: number; remark?: string };

/**
 * A role: its fields, the menus it shows (a tree, each node on its own: a checked page brings its
 * directories along so the navigation keeps its shape; a checked button grants its permission code,
 * as the server counts it) and the permissions it grants (grouped by their first segment).
 */
export function RoleForm({ id, onClose }: { id: number | null; onClose: (saved: boolean) => void }) {
  const { t } = useTranslation('identity');
  const { t: tMenu } = useTranslation('menu');
  const [form] = Form.useForm<Values>();
  const [menus, setMenus] = useState<Key[]>([]);
  const [permissions, setPermissions] = useState<Key[]>([]);
  const menuTree = useMenuTree();
  const groups = useQuery({
    queryKey: ['identity', 'permissions'],
    queryFn: () => unwrap(api.GET('/api/permissions')),
    staleTime: 300_000,
  });
  const detail = useQuery({
    queryKey: ['identity', 'roles', 'detail', id],
    queryFn: () => unwrap(api.GET('/api/roles/{id}', { params: { path: { id: id as number } } })),
    enabled: id !== null,
  });
  useEffect(() => {
    const r = detail.data;
    if (!r || !menuTree.data) return;
    form.setFieldsValue({ code: r.code, name: r.name, status: r.status, sort: r.sort, remark: r.remark });
    // the tree is strict (a page without all its buttons is a choice): the held ids as they are
    setMenus(r.menuIds);
    setPermissions(r.permissions);
  }, [detail.data, menuTree.data, form]);

  const save = async (v: Values) => {
    const body = {
      ...v,
      remark: v.remark ?? '',
      menuIds: withAncestors(menuTree.data ?? [], menus.map(Number)),
      permissions: permissions.map(String).filter((k) => !k.startsWith('group:')),
    };
    if (id === null) return unwrap(api.POST('/api/roles', { body }));
    return unwrap(api.PUT('/api/roles/{id}', { params: { path: { id } }, body }));
  };
  const required = [{ required: true, message: t('required') }];
  const permissionTree = (groups.data ?? []).map((g) => ({
    key: `group:${g.group}`,
    title: t(`roles.groups.${g.group}`, { defaultValue: g.group }),
    children: g.codes.map((c) => ({ key: c, title: c })),
  }));
  return (
    <FormDialog
      title={t(id === null ? 'roles.create' : 'roles.edit')}
      form={form}
      save={save}
      onSaved={() => onClose(true)}
      onCancel={() => onClose(false)}
      initialValues={{ status: 'active', sort: 0 }}
      loading={detail.isFetching}
      loadError={detail.error ?? menuTree.error ?? groups.error}
      width={720}
    >
      <Tabs
        items={[
          {
            key: 'basics',
            label: t('roles.basics'),
            forceRender: true,
            children: (
              <>
                <Form.Item name="name" label={t('name')} rules={required}>
                  <Input />
                </Form.Item>
                <Form.Item name="code" label={t('code')} rules={required}>
                  <Input />
                </Form.Item>
                <StatusField />
                <Form.Item name="sort" label={t('sort')}>
                  <InputNumber min={0} />
                </Form.Item>
                <Form.Item name="remark" label={t('remark')}>
                  <Input.TextArea rows={2} />
                </Form.Item>
              </>
            ),
          },
          {
            key: 'menus',
            label: t('roles.menus'),
            forceRender: true,
            children: (
              <Form.Item name="menuIds" label={t('roles.menusHelp')}>
                <Tree
                  // keyed by the data, so expanding all happens once the tree has come
                  key={menuTree.data ? 'loaded' : 'loading'}
                  checkable
                  checkStrictly
                  selectable={false}
                  defaultExpandAll
                  height={360}
                  treeData={menuTreeData(tMenu, menuTree.data ?? [])}
                  checkedKeys={menus}
                  onCheck={(checked) => setMenus(Array.isArray(checked) ? checked : checked.checked)}
                />
              </Form.Item>
            ),
          },
          {
            key: 'permissions',
            label: t('roles.permissions'),
            forceRender: true,
            children: (
              <Form.Item name="permissions" label={t('roles.permissionsHelp')}>
                <Tree
                  checkable
                  selectable={false}
                  treeData={permissionTree}
                  checkedKeys={permissions}
                  onCheck={(checked) => setPermissions(Array.isArray(checked) ? checked : checked.checked)}
                />
              </Form.Item>
            ),
          },
        ]}
      />
    </FormDialog>
  );
}

/** The checked menus and every directory above them, so a page keeps its place in the navigation. */
function withAncestors(tree: MenuTreeNode[], checked: number[]): number[] {
  const parent = new Map<number, number | null>();
  const walk = (nodes: MenuTreeNode[], above: number | null) => {
    for (const n of nodes) {
      parent.set(n.id, above);
      walk(n.children, n.id);
    }
  };
  walk(tree, null);
  const out = new Set<number>();
  for (const id of checked) {
    out.add(id);
    for (let up = parent.get(id); up != null; up = parent.get(up)) out.add(up);
  }
  return [...out];
}
