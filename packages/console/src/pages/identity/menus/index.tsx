import { EyeInvisibleOutlined, FileOutlined, FolderOutlined, KeyOutlined } from '@ant-design/icons';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Alert, Button, Space, Table, Tag, Typography } from 'antd';
import type { ColumnsType } from 'antd/es/table';
import type { TFunction } from 'i18next';
import { type Key, lazy, Suspense, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { api, unwrap } from '../../../api/client';
import { useMayCall } from '../../../app/me';
import { ErrorMessage } from '../../../components/error-message';
import { KeywordSearch, PageTitle, RowActions, useListFeedback } from '../../../components/list-page';
import { ScrollRegion } from '../../../components/scroll-region';
import { useListParams } from '../../../components/server-table';
import { type MenuTreeNode, nodeName, useMenuTree } from '../shared/trees';
import { StatusTag } from '../shared/view';

// the form (a tree picker, permission suggestions) loads when opened: the tree stays light
const MenuForm = lazy(() => import('./menu-form').then((m) => ({ default: m.MenuForm })));

/** A node as the table shows it: a leaf has no `children`, so it gets no expand button. */
type Row = Omit<MenuTreeNode, 'children'> & { label: string; children?: Row[] };

const TYPE_ICONS = { directory: FolderOutlined, menu: FileOutlined, button: KeyOutlined } as const;

/** The rows of the tree, named as the navigation names them; with a keyword, the matches and their ancestors. */
function toRows(t: TFunction, nodes: MenuTreeNode[], keyword: string): Row[] {
  const out: Row[] = [];
  for (const { children, ...n } of nodes) {
    const label = nodeName(t, { ...n, children });
    const below = toRows(t, children, keyword);
    const matches =
      !keyword ||
      [label, n.name, n.path, n.permission ?? ''].some((s) => s.toLowerCase().includes(keyword.toLowerCase()));
    if (matches || below.length) out.push({ ...n, label, children: below.length ? below : undefined });
  }
  return out;
}

const withChildren = (rows: Row[]): number[] =>
  rows.flatMap((r) => (r.children ? [r.id, ...withChildren(r.children)] : []));

/** Codes and short values stay on one line: the table scrolls in its region rather than break `/system/users`. */
const oneLine = {
  onHeaderCell: () => ({ style: { whiteSpace: 'nowrap' as const } }),
  onCell: () => ({ style: { whiteSpace: 'nowrap' as const } }),
};

type Editing = { id: number | null; parent?: Row | null };

/**
 * The platform's menu tree: directories, pages and their buttons (the permission codes a role can
 * grant). Everyone with system:menu:list sees it; only platform administrators change it (the
 * codes are platform:menu:*), so a tenant administrator sees it read-only and is told why.
 */
export default function MenusPage() {
  const { t } = useTranslation('identity');
  const { t: tMenu } = useTranslation('menu');
  const can = useMayCall();
  const client = useQueryClient();
  const tree = useMenuTree();
  const params = useListParams(['keyword'] as const);
  const keyword = params.filters.keyword ?? '';
  const rows = toRows(tMenu, tree.data ?? [], keyword);
  // by default the directories are open, showing the pages; a search opens every branch it kept.
  // What the person opened or closed holds for the search they did it in.
  const [expanded, setExpandedFor] = useState<{ keyword: string; keys: Key[] } | null>(null);
  const expandedKeys =
    expanded?.keyword === keyword ? expanded.keys : keyword ? withChildren(rows) : rows.map((r) => r.id);
  const setExpanded = (keys: Key[]) => setExpandedFor({ keyword, keys });
  const [editing, setEditing] = useState<Editing | null>(null);
  // the navigation comes from the same menus: it changes with them
  const { done, fail } = useListFeedback(['identity', 'menus'], () => {
    void client.invalidateQueries({ queryKey: ['me'] });
  });
  const remove = useMutation({
    mutationFn: (id: number) => unwrap(api.DELETE('/api/menus/{id}', { params: { path: { id } } })),
    onSuccess: () => done(t('deleted')),
    onError: fail,
  });
  const mayCreate = can('identity.menu.create');
  const mayUpdate = can('identity.menu.update');
  const mayDelete = can('identity.menu.delete');

  const columns: ColumnsType<Row> = [
    {
      title: t('name'),
      dataIndex: 'label',
      // a page or directory left out of the navigation says so by its name (buttons never show there)
      render: (v: string, r) =>
        r.hidden && r.type !== 'button' ? (
          <Space size={4} wrap>
            {v}
            <Tag icon={<EyeInvisibleOutlined aria-hidden />}>{t('menus.hidden')}</Tag>
          </Space>
        ) : (
          v
        ),
    },
    {
      title: t('menus.type'),
      dataIndex: 'type',
      ...oneLine,
      render: (v: Row['type']) => {
        const Icon = TYPE_ICONS[v];
        return <Tag icon={<Icon aria-hidden />}>{t(`menus.types.${v}`)}</Tag>;
      },
    },
    {
      title: t('menus.path'),
      dataIndex: 'path',
      ...oneLine,
      render: (v: string) => (v ? <Typography.Text code>{v}</Typography.Text> : ''),
    },
    // an icon's name matters least: on narrower screens it is left to the form
    { title: t('menus.icon'), dataIndex: 'icon', responsive: ['xxl'], ...oneLine },
    {
      title: t('menus.permission'),
      dataIndex: 'permission',
      ...oneLine,
      render: (v: string | null) => (v ? <Typography.Text code>{v}</Typography.Text> : ''),
    },
    { title: t('sort'), dataIndex: 'sort', ...oneLine },
    {
      title: t('status.label'),
      dataIndex: 'status',
      ...oneLine,
      render: (v: Row['status']) => <StatusTag status={v} />,
    },
  ];
  if (mayCreate || mayUpdate || mayDelete)
    columns.push({
      title: t('actions'),
      key: 'actions',
      ...oneLine,
      render: (_, r) => (
        <RowActions
          size="small"
          actions={[
            {
              label: t('menus.addChild'),
              show: mayCreate && r.type !== 'button',
              onClick: () => setEditing({ id: null, parent: r }),
            },
            { label: t('edit'), show: mayUpdate, onClick: () => setEditing({ id: r.id }) },
            {
              label: t('delete'),
              show: mayDelete,
              confirm: t('menus.confirmDelete', { name: r.label }),
              // the server refuses a node with children: say so before anyone tries
              ...(r.children ? { disabledReason: t('menus.hasChildren') } : {}),
              onClick: () => remove.mutate(r.id),
            },
          ]}
        />
      ),
    });

  return (
    <>
      <PageTitle>{t('menus.title')}</PageTitle>
      {mayCreate || mayUpdate ? null : (
        <Alert type="info" showIcon title={t('menus.readOnly')} style={{ marginBottom: 16 }} />
      )}
      <Space wrap style={{ marginBottom: 16 }}>
        <KeywordSearch params={params} label={t('menus.search')} />
        <Button onClick={() => setExpanded(withChildren(rows))}>{t('menus.expandAll')}</Button>
        <Button onClick={() => setExpanded([])}>{t('menus.collapseAll')}</Button>
        {mayCreate ? (
          <Button type="primary" onClick={() => setEditing({ id: null, parent: null })}>
            {t('menus.create')}
          </Button>
        ) : null}
      </Space>
      <ErrorMessage error={tree.error} />
      <ScrollRegion label={t('menus.title')}>
        <Table<Row>
          size="small"
          rowKey="id"
          columns={columns}
          dataSource={rows}
          loading={tree.isFetching}
          pagination={false}
          expandable={{ expandedRowKeys: expandedKeys, onExpandedRowsChange: (keys) => setExpanded([...keys]) }}
        />
      </ScrollRegion>
      <Suspense>
        {editing ? (
          <MenuForm
            id={editing.id}
            parent={editing.parent ?? null}
            onClose={(saved) => {
              setEditing(null);
              if (saved) done(t('saved'));
            }}
          />
        ) : null}
      </Suspense>
    </>
  );
}
