import { FileOutlined, FolderOutlined } from '@ant-design/icons';
import { useQuery } from '@tanstack/react-query';
import { Breadcrumb, Button, Drawer, Space, Table, Typography } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useLocation, useNavigate, useSearchParams } from 'react-router';
import { ErrorMessage } from '../../components/error-message';
import { FilePanel } from './file-panel';
import { formatBytes, formatDate } from './format';
import { SaveButton } from './save-button';
import { browse, type PublicNode, type ShareMetadata } from './share-api';

type Crumb = { id: number; name: string };
const PAGE_SIZE = 20;

/**
 * A shared folder, browsed on the server's pages. The folder and page are in the URL (a view is a
 * link that reloads); the names of the folders above ride in the history entry, so a reload keeps
 * the breadcrumbs without asking the server for a path it does not offer.
 */
export default function FolderView({ token, meta }: { token: string; meta: ShareMetadata }) {
  const { t, i18n } = useTranslation('share');
  const [params] = useSearchParams();
  const navigate = useNavigate();
  const location = useLocation();
  const root = meta.node as PublicNode;
  const folderId = Number(params.get('folder')) || root.id;
  const page = Number(params.get('page')) || 1;
  const trail = ((location.state as { trail?: Crumb[] } | null)?.trail ?? []).filter((c) => c.id !== root.id);
  const [open, setOpen] = useState<PublicNode | null>(null);

  const list = useQuery({
    queryKey: ['share-nodes', token, folderId, page],
    queryFn: () =>
      browse(token, { ...(folderId === root.id ? {} : { parentId: folderId }), page, pageSize: PAGE_SIZE }),
    retry: false,
  });

  function go(folder: number, nextPage: number, nextTrail: Crumb[]) {
    const q = new URLSearchParams();
    if (folder !== root.id) q.set('folder', String(folder));
    if (nextPage > 1) q.set('page', String(nextPage));
    navigate({ search: q.toString() }, { state: { trail: nextTrail } });
  }

  const crumbs = [
    {
      title: (
        <a
          href="?"
          onClick={(e) => {
            e.preventDefault();
            go(root.id, 1, []);
          }}
        >
          {root.name}
        </a>
      ),
    },
    ...trail.map((c, i) => ({
      title:
        i === trail.length - 1 ? (
          <span aria-current="page">{c.name}</span>
        ) : (
          <a
            href={`?folder=${c.id}`}
            onClick={(e) => {
              e.preventDefault();
              go(c.id, 1, trail.slice(0, i + 1));
            }}
          >
            {c.name}
          </a>
        ),
    })),
  ];

  return (
    <Space direction="vertical" size="middle" style={{ width: '100%' }}>
      <Typography.Title level={1} style={{ fontSize: 24, margin: 0 }}>
        {root.name}
      </Typography.Title>
      <SaveButton
        token={token}
        nodeId={folderId}
        allowed={(meta.capabilities ?? []).includes('save')}
        usedUp={meta.remainingDownloads === 0}
      />
      <nav aria-label={t('folder.trail')}>
        <Breadcrumb items={folderId === root.id ? [{ title: <span aria-current="page">{root.name}</span> }] : crumbs} />
      </nav>
      <ErrorMessage error={list.error} />
      <Table<PublicNode>
        rowKey="id"
        loading={list.isPending}
        dataSource={list.data?.list ?? []}
        locale={{ emptyText: t('folder.empty') }}
        pagination={{
          current: page,
          pageSize: PAGE_SIZE,
          total: list.data?.total ?? 0,
          showSizeChanger: false,
          showTotal: (count) => t('folder.items', { count }),
          onChange: (p) => go(folderId, p, trail),
        }}
        columns={[
          {
            key: 'name',
            title: t('folder.name'),
            render: (_, n) =>
              n.type === 'folder' ? (
                <Button
                  type="link"
                  icon={<FolderOutlined aria-hidden />}
                  aria-label={t('folder.open', { name: n.name })}
                  onClick={() => go(n.id, 1, [...trail, { id: n.id, name: n.name }])}
                  style={{ padding: 0 }}
                >
                  {n.name}
                </Button>
              ) : (
                <Button
                  type="link"
                  icon={<FileOutlined aria-hidden />}
                  onClick={() => setOpen(n)}
                  style={{ padding: 0 }}
                >
                  {n.name}
                </Button>
              ),
          },
          {
            key: 'size',
            title: t('folder.size'),
            render: (_, n) => (n.type === 'file' ? formatBytes(n.size, i18n.language) : ''),
          },
          { key: 'updated', title: t('folder.updatedAt'), render: (_, n) => formatDate(n.updatedAt, i18n.language) },
        ]}
      />
      <Drawer
        open={open !== null}
        onClose={() => setOpen(null)}
        size="large"
        closable={{ 'aria-label': t('folder.close') }}
        title={null}
        destroyOnHidden
      >
        {open ? <FilePanel token={token} meta={meta} node={open} headingLevel={2} /> : null}
      </Drawer>
    </Space>
  );
}
