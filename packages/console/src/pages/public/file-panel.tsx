import { Alert, Descriptions, Space, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { DownloadButton } from './download-button';
import { formatBytes, formatDate } from './format';
import { SaveButton } from './save-button';
import type { PublicNode, ShareMetadata } from './share-api';
import { SharePreview } from './share-preview';

/** One shared file: what it is, its preview, and what the link allows doing with it. */
export function FilePanel({
  token,
  meta,
  node,
  headingLevel,
}: {
  token: string;
  meta: ShareMetadata;
  node: PublicNode;
  headingLevel: 1 | 2;
}) {
  const { t, i18n } = useTranslation('share');
  const caps = meta.capabilities ?? [];
  const canDownload = caps.includes('download');
  const usedUp = meta.remainingDownloads === 0;
  return (
    <Space direction="vertical" size="middle" style={{ width: '100%' }}>
      <Typography.Title level={headingLevel} style={{ fontSize: headingLevel === 1 ? 24 : 20, margin: 0 }}>
        {node.name}
      </Typography.Title>
      <Descriptions
        size="small"
        column={{ xs: 1, sm: 3 }}
        items={[
          { key: 'size', label: t('file.size'), children: formatBytes(node.size, i18n.language) },
          { key: 'type', label: t('file.type'), children: node.mime ?? t('file.unknownType') },
          { key: 'updated', label: t('file.updatedAt'), children: formatDate(node.updatedAt, i18n.language) },
        ]}
      />
      {/* no empty row of actions (its gap) on a link that allows neither */}
      {canDownload || caps.includes('save') ? (
        <Space wrap align="start">
          {canDownload ? <DownloadButton token={token} node={node} usedUp={usedUp} /> : null}
          <SaveButton token={token} nodeId={node.id} allowed={caps.includes('save')} usedUp={usedUp} />
        </Space>
      ) : null}
      {usedUp && (canDownload || caps.includes('save')) ? (
        <Alert type="info" showIcon title={t('file.downloadsUsedUp')} />
      ) : null}
      {canDownload ? null : <Alert type="info" showIcon title={t('file.previewOnly')} />}
      {caps.includes('preview') ? (
        <section aria-labelledby={`preview-${node.id}`}>
          <Typography.Title
            level={(headingLevel + 1) as 2 | 3}
            id={`preview-${node.id}`}
            style={{ fontSize: 16, marginTop: 0 }}
          >
            {t('file.previewHeading')}
          </Typography.Title>
          {meta.watermark ? (
            <Typography.Paragraph type="secondary">{t('file.watermarked')}</Typography.Paragraph>
          ) : null}
          <SharePreview token={token} node={node} />
        </section>
      ) : null}
    </Space>
  );
}
