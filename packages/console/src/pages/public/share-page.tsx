import { useQuery } from '@tanstack/react-query';
import { Card, Spin, Typography } from 'antd';
import { lazy, Suspense, useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useParams } from 'react-router';
import { QueryProvider } from '../../app/queries';
import { FilePanel } from './file-panel';
import { formatDate } from './format';
import { PasswordForm } from './password-form';
import { PublicLayout } from './public-layout';
import { type PublicNode, shareMetadata } from './share-api';
import { ShareState } from './share-state';

// a folder's table and a collection's upload are chunks of their own: a visitor loads only the kind
// of link they were sent (and the share page stays inside the lazy-page budget)
const FolderView = lazy(() => import('./folder-view'));
const CollectView = lazy(() => import('./collect-view'));

/**
 * `/s/:token`: the page a share link's URL opens (decision 0017), no sign-in. It asks the link's
 * metadata once (each ask without a session counts an access), then shows the password form, the
 * link's state in words, a file, a folder, or a collection form.
 */
export default function SharePage() {
  return (
    <QueryProvider>
      <ShareLinkPage />
    </QueryProvider>
  );
}

function ShareLinkPage() {
  const { t, i18n } = useTranslation('share');
  const { token = '' } = useParams();
  // bumped when a password opens a session: the metadata is then asked again, with the session
  const [session, setSession] = useState(0);
  const meta = useQuery({
    queryKey: ['share', token, session],
    queryFn: () => shareMetadata(token),
    retry: false,
    staleTime: Number.POSITIVE_INFINITY,
  });

  const kind = meta.data?.kind;
  useEffect(() => {
    document.title = `${kind === 'collect' ? t('collectTitle') : t('pageTitle')} · ${t('common:appName')}`;
  }, [kind, t]);

  let body: React.ReactNode;
  if (meta.isPending)
    body = <Spin size="large" style={{ display: 'block', marginTop: 96 }} tip={t('common:loading')} />;
  else if (meta.error) body = <ShareState error={meta.error} />;
  else if (meta.data.passwordRequired && !meta.data.hasSession)
    body = <PasswordForm token={token} onOpened={() => setSession((s) => s + 1)} />;
  else if (meta.data.kind === 'collect') body = <CollectView token={token} meta={meta.data} />;
  else if (meta.data.node?.type === 'folder') body = <FolderView token={token} meta={meta.data} />;
  else body = <FilePanel token={token} meta={meta.data} node={meta.data.node as PublicNode} headingLevel={1} />;

  return (
    <PublicLayout>
      <Card>
        <Suspense fallback={<Spin />}>{body}</Suspense>
        {meta.data?.expiresAt && (!meta.data.passwordRequired || meta.data.hasSession) ? (
          <Typography.Paragraph type="secondary" style={{ marginTop: 16, marginBottom: 0 }}>
            {t('expiresAt', { date: formatDate(meta.data.expiresAt, i18n.language) })}
          </Typography.Paragraph>
        ) : null}
      </Card>
    </PublicLayout>
  );
}
