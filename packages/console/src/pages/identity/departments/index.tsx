import { Button, Empty, Input, Space, Tree } from 'antd';
import { lazy, type ReactNode, Suspense, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useMayCall } from '../../../app/me';
import { ErrorMessage } from '../../../components/error-message';
import { PageTitle, useListFeedback } from '../../../components/list-page';
import { useListParams } from '../../../components/server-table';
import { useDepartmentTree } from '../shared/pickers';
import { StatusTag } from '../shared/view';
import { DepartmentDetail } from './department-detail';
import { Panel } from './panel';
import { allIds, type Department, filterTree, findDepartment } from './tree';

// the form (a tree select and a user search) loads when opened: the page stays light
const DepartmentForm = lazy(() => import('./department-form').then((m) => ({ default: m.DepartmentForm })));

type Editing = { id: number | null; parentId: number | null } | null;

/**
 * The department tree of the tenant (one call: departments are few) beside the selected
 * department: its details, its actions and its users, paged on the server. The selection and the
 * users' page are in the URL, so a department's view is a link.
 */
export default function DepartmentsPage() {
  const { t } = useTranslation('identity');
  const can = useMayCall();
  const params = useListParams(['id', 'sub'] as const);
  const selectedId = Number(params.filters.id) || null;
  const tree = useDepartmentTree();
  const [filter, setFilter] = useState('');
  const [collapsed, setCollapsed] = useState(new Set<number>());
  const [editing, setEditing] = useState<Editing>(null);
  const { done } = useListFeedback(['identity', 'departments']);

  const nodes = (tree.data ?? []) as Department[];
  const shown = filterTree(nodes, filter.trim().toLowerCase());
  // every department open unless closed by hand (new ones appear open); a filter opens every match
  const expanded = filter.trim() ? allIds(shown) : allIds(shown).filter((id) => !collapsed.has(id));
  const selected = selectedId ? findDepartment(nodes, selectedId) : undefined;
  const toTreeData = (list: Department[]): TreeItem[] =>
    list.map((d) => ({
      key: d.id,
      title: (
        <Space size={6}>
          {d.name}
          {d.status === 'disabled' ? <StatusTag status="disabled" /> : null}
        </Space>
      ),
      children: toTreeData(d.children),
    }));

  return (
    <>
      <PageTitle>{t('departments.title')}</PageTitle>
      <ErrorMessage error={tree.error} />
      <div style={{ display: 'grid', gridTemplateColumns: 'minmax(240px, 320px) minmax(0, 1fr)', gap: 16 }}>
        <Panel label={t('departments.tree')}>
          <Space orientation="vertical" style={{ width: '100%' }}>
            <Input.Search
              aria-label={t('departments.filter')}
              placeholder={t('departments.filter')}
              allowClear
              value={filter}
              onChange={(e) => setFilter(e.target.value)}
            />
            {can('identity.department.create') ? (
              <Button type="primary" block onClick={() => setEditing({ id: null, parentId: null })}>
                {t('departments.create')}
              </Button>
            ) : null}
            {nodes.length && !shown.length ? <Empty description={t('departments.noMatch')} /> : null}
            {!tree.isPending && !nodes.length ? <Empty description={t('departments.empty')} /> : null}
            <Tree
              aria-label={t('departments.tree')}
              blockNode
              treeData={toTreeData(shown)}
              selectedKeys={selectedId ? [selectedId] : []}
              expandedKeys={expanded}
              onExpand={(keys) => {
                if (filter.trim()) return;
                const open = new Set(keys.map(Number));
                setCollapsed(new Set(allIds(nodes).filter((id) => !open.has(id))));
              }}
              // a second click on the selected department keeps it selected
              onSelect={(keys) => keys.length && params.set({ id: Number(keys[0]) })}
            />
          </Space>
        </Panel>
        {selected ? (
          <DepartmentDetail
            department={selected}
            nodes={nodes}
            params={params}
            onEdit={() => setEditing({ id: selected.id, parentId: selected.parentId })}
            onCreateChild={() => setEditing({ id: null, parentId: selected.id })}
            onDeleted={() => {
              params.set({ id: null, sub: null });
              done(t('deleted'));
            }}
          />
        ) : (
          <Panel>
            <Empty description={t(selectedId && !tree.isPending ? 'departments.gone' : 'departments.pickOne')} />
          </Panel>
        )}
      </div>
      <Suspense>
        {editing ? (
          <DepartmentForm
            id={editing.id}
            parentId={editing.parentId}
            onClose={(saved) => {
              setEditing(null);
              if (saved) {
                params.set({ id: saved.id });
                done(t('saved'));
              }
            }}
          />
        ) : null}
      </Suspense>
    </>
  );
}

type TreeItem = { key: number; title: ReactNode; children: TreeItem[] };
