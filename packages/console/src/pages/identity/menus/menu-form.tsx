import { useQuery } from '@tanstack/react-query';
import { AutoComplete, Form, Input, InputNumber, Radio, Switch, TreeSelect } from 'antd';
import type { TFunction } from 'i18next';
import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { api, unwrap } from '../../../api/client';
import { useMayCall } from '../../../app/me';
import { FormDialog } from '../../../components/form-dialog';
import type { PickerProps } from '../shared/pickers';
import { type MenuTreeNode, nodeName, useMenuTree } from '../shared/trees';
import { StatusField } from '../shared/view';

type MenuType = MenuTreeNode['type'];
type Values = {
  parentId: number | null;
  type: MenuType;
  name: string;
  path?: string;
  component?: string;
  icon?: string;
  permission?: string;
  sort: number;
  hidden: boolean;
  status: 'active' | 'disabled';
};
type Optional = 'path' | 'component' | 'icon' | 'permission' | 'hidden';

/**
 * The fields that mean something for each type: a directory groups pages, a page is a route with
 * its component and (usually) the permission that lists it, a button is only a permission code.
 */
const FIELDS: Record<MenuType, readonly Optional[]> = {
  directory: ['path', 'icon', 'hidden'],
  menu: ['path', 'component', 'icon', 'permission', 'hidden'],
  button: ['permission'],
};

/** What a new node under `parent` most likely is. */
const childType = (parent: { type: MenuType } | null): MenuType =>
  parent === null ? 'directory' : parent.type === 'directory' ? 'menu' : 'button';

type Parent = { value: number; title: string; children: Parent[] };
/** Where a node may go: under a directory or a page, never under a button or under itself. */
function parents(t: TFunction, nodes: MenuTreeNode[], self: number | null): Parent[] {
  return nodes
    .filter((n) => n.type !== 'button' && n.id !== self)
    .map((n) => ({ value: n.id, title: nodeName(t, n), children: parents(t, n.children, self) }));
}

/** The parent of a node; cleared, the node is at the top. */
function ParentPicker({
  value,
  onChange,
  ...props
}: PickerProps<number | null> & { treeData: Parent[]; placeholder: string; loading: boolean }) {
  return (
    <TreeSelect
      {...props}
      value={value ?? undefined}
      allowClear
      showSearch={{ treeNodeFilterProp: 'title' }}
      treeDefaultExpandAll
      onChange={(v) => onChange?.(v ?? null)}
    />
  );
}

/**
 * Create a menu node (under `parent`, or at the top) or change one. The name is the stored one;
 * the console shows a translation by path where it has one, and says so under the name.
 */
export function MenuForm({
  id,
  parent,
  onClose,
}: {
  id: number | null;
  parent: { id: number; type: MenuType } | null;
  onClose: (saved: boolean) => void;
}) {
  const { t } = useTranslation('identity');
  const { t: tMenu } = useTranslation('menu');
  const may = useMayCall();
  const [form] = Form.useForm<Values>();
  const type = Form.useWatch('type', form) ?? childType(parent);
  const path = Form.useWatch('path', form) ?? '';
  const name = Form.useWatch('name', form) ?? '';
  const tree = useMenuTree();
  const detail = useQuery({
    queryKey: ['identity', 'menus', 'detail', id],
    queryFn: () => unwrap(api.GET('/api/menus/{id}', { params: { path: { id: id as number } } })),
    enabled: id !== null,
  });
  // the declared permission codes, as suggestions: a code nobody declares guards nothing
  const codes = useQuery({
    queryKey: ['identity', 'permissions'],
    queryFn: () => unwrap(api.GET('/api/permissions')),
    enabled: may('identity.permission.list'),
    staleTime: 300_000,
  });
  useEffect(() => {
    const m = detail.data;
    if (m)
      form.setFieldsValue({
        parentId: m.parentId,
        type: m.type,
        name: m.name,
        path: m.path,
        component: m.component,
        icon: m.icon,
        permission: m.permission ?? '',
        sort: m.sort,
        hidden: m.hidden,
        status: m.status,
      });
  }, [detail.data, form]);

  const save = async (v: Values) => {
    const shown = FIELDS[v.type];
    const body = {
      parentId: v.parentId ?? null,
      type: v.type,
      name: v.name.trim(),
      sort: v.sort,
      status: v.status,
      // only the fields of its type: a button keeps no stale path from what it was before
      ...(shown.includes('path') ? { path: v.path?.trim() ?? '' } : {}),
      ...(shown.includes('component') ? { component: v.component?.trim() ?? '' } : {}),
      ...(shown.includes('icon') ? { icon: v.icon?.trim() ?? '' } : {}),
      ...(shown.includes('permission') ? { permission: v.permission?.trim() || null } : {}),
      ...(shown.includes('hidden') ? { hidden: v.hidden } : {}),
    };
    if (id === null) return unwrap(api.POST('/api/menus', { body }));
    return unwrap(api.PUT('/api/menus/{id}', { params: { path: { id } }, body }));
  };

  const shown = new Set(FIELDS[type]);
  const translated = path ? tMenu(path, { defaultValue: '' }) : '';
  const codeOptions = (codes.data ?? []).flatMap((g) => g.codes.map((c) => ({ value: c })));
  const required = [{ required: true, message: t('required') }];
  return (
    <FormDialog
      title={t(id === null ? 'menus.create' : 'menus.edit')}
      form={form}
      save={save}
      onSaved={() => onClose(true)}
      onCancel={() => onClose(false)}
      initialValues={{
        parentId: parent?.id ?? null,
        type: childType(parent),
        sort: 0,
        hidden: false,
        status: 'active',
      }}
      loading={detail.isFetching}
      loadError={detail.error ?? tree.error}
      width={640}
    >
      <Form.Item name="parentId" label={t('menus.parent')} extra={t('menus.parentHelp')}>
        <ParentPicker
          placeholder={t('menus.topLevel')}
          treeData={parents(tMenu, tree.data ?? [], id)}
          loading={tree.isPending}
        />
      </Form.Item>
      <Form.Item name="type" label={t('menus.type')}>
        <Radio.Group
          options={(['directory', 'menu', 'button'] as const).map((v) => ({
            value: v,
            label: t(`menus.types.${v}`),
          }))}
        />
      </Form.Item>
      <Form.Item
        name="name"
        label={t('menus.storedName')}
        rules={required}
        extra={translated && translated !== name ? t('menus.shownAs', { name: translated }) : undefined}
      >
        <Input maxLength={64} />
      </Form.Item>
      {shown.has('path') ? (
        <Form.Item name="path" label={t('menus.path')} extra={t('menus.pathHelp')}>
          <Input maxLength={255} placeholder="/system/example" />
        </Form.Item>
      ) : null}
      {shown.has('component') ? (
        <Form.Item name="component" label={t('menus.component')}>
          <Input maxLength={255} placeholder="system/example/index" />
        </Form.Item>
      ) : null}
      {shown.has('icon') ? (
        <Form.Item name="icon" label={t('menus.icon')}>
          <Input maxLength={64} />
        </Form.Item>
      ) : null}
      {shown.has('permission') ? (
        <Form.Item
          name="permission"
          label={t('menus.permission')}
          rules={type === 'button' ? required : undefined}
          extra={t(type === 'button' ? 'menus.permissionButtonHelp' : 'menus.permissionMenuHelp')}
        >
          <AutoComplete
            options={codeOptions}
            placeholder="system:example:list"
            showSearch={{
              filterOption: (input, option) => String(option?.value ?? '').includes(input.trim().toLowerCase()),
            }}
          />
        </Form.Item>
      ) : null}
      <Form.Item name="sort" label={t('sort')}>
        <InputNumber min={0} max={1_000_000} precision={0} />
      </Form.Item>
      {shown.has('hidden') ? (
        <Form.Item name="hidden" label={t('menus.hideInNavigation')} valuePropName="checked">
          <Switch />
        </Form.Item>
      ) : null}
      <StatusField />
    </FormDialog>
  );
}
