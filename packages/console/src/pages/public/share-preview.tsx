import { useQuery } from '@tanstack/react-query';
import { Spin, Typography, theme } from 'antd';
import { useEffect, useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { ErrorMessage } from '../../components/error-message';
import { type PublicNode, preview } from './share-api';

/**
 * The server's preview of a file (decision 0019): a re-encoded image, watermark already burned in
 * when the link asks for one, or sanitized text. Fetched as a Blob so a password link's session
 * header goes with it; the original bytes are never used for it.
 */
export function SharePreview({ token, node }: { token: string; node: PublicNode }) {
  const { t } = useTranslation('share');
  const { token: colors } = theme.useToken();
  const q = useQuery({
    queryKey: ['share-preview', token, node.id],
    queryFn: async () => {
      const blob = await preview(token, node.id);
      return node.preview === 'text' ? { text: await blob.text() } : { blob };
    },
    enabled: node.preview !== 'none',
    retry: false,
    staleTime: Number.POSITIVE_INFINITY,
  });
  const blob = q.data && 'blob' in q.data ? q.data.blob : null;
  const imageUrl = useMemo(() => (blob ? URL.createObjectURL(blob) : null), [blob]);
  useEffect(() => () => (imageUrl ? URL.revokeObjectURL(imageUrl) : undefined), [imageUrl]);

  if (node.preview === 'none') return <Typography.Text type="secondary">{t('file.noPreview')}</Typography.Text>;
  if (q.isPending) return <Spin />;
  if (q.error) return <ErrorMessage error={q.error} />;
  if (imageUrl)
    return (
      <img
        src={imageUrl}
        alt={t('file.previewOf', { name: node.name })}
        style={{ maxWidth: '100%', maxHeight: '70vh', display: 'block', margin: '0 auto' }}
      />
    );
  return (
    <section
      // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region must be reachable by keyboard (WCAG 2.1.1; axe scrollable-region-focusable)
      tabIndex={0}
      aria-label={t('file.previewOf', { name: node.name })}
      style={{
        maxHeight: '60vh',
        overflow: 'auto',
        padding: 12,
        background: colors.colorFillQuaternary,
        border: `1px solid ${colors.colorBorderSecondary}`,
        borderRadius: colors.borderRadius,
      }}
    >
      <pre style={{ margin: 0, whiteSpace: 'pre-wrap', wordBreak: 'break-word', color: colors.colorText }}>
        {q.data && 'text' in q.data ? q.data.text : ''}
      </pre>
    </section>
  );
}
