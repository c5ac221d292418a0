import { DownloadOutlined } from '@ant-design/icons';
import { Button, Space } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { saveBlob } from '../../components/download';
import { ErrorMessage } from '../../components/error-message';
import { content, type PublicNode, useDownloadsTaken } from './share-api';

/**
 * Downloads through the typed client (the session header goes with it), then hands the bytes to
 * the browser under the file's name. The whole file passes through memory: fine for the sizes
 * people share by link.
 */
export function DownloadButton({
  token,
  node,
  label,
  usedUp,
}: {
  token: string;
  node: PublicNode;
  label?: string;
  /** the link allows no more downloads: the button stays, disabled, beside the page's word on it */
  usedUp?: boolean;
}) {
  const { t } = useTranslation('share');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const downloads = useDownloadsTaken(token);

  async function download() {
    setBusy(true);
    setError(null);
    try {
      saveBlob(await content(token, node.id), node.name);
      downloads.taken();
    } catch (err) {
      setError(err);
      downloads.failed(err);
    } finally {
      setBusy(false);
    }
  }
  return (
    <Space direction="vertical">
      <Button
        type="primary"
        icon={<DownloadOutlined />}
        onClick={() => void download()}
        loading={busy}
        disabled={usedUp}
      >
        {label ?? t('file.download')}
      </Button>
      <ErrorMessage error={error} />
    </Space>
  );
}
