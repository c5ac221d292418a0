import { DownloadOutlined } from '@ant-design/icons';
import { Button, Space } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { saveBlob } from '../../components/download';
import { ErrorMessage } from '../../components/error-message';
import { content, type PublicNode } from './share-api';

/**
 * Downloads through the typed client (the session header goes with it), then hands the bytes to
 * the browser under the file's name. The whole file passes through memory: fine for the sizes
 * people share by link; a cookie session (branch session-cookie) will allow a plain link instead.
 */
export function DownloadButton({ token, node, label }: { token: string; node: PublicNode; label?: string }) {
  const { t } = useTranslation('share');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);

  async function download() {
    setBusy(true);
    setError(null);
    try {
      saveBlob(await content(token, node.id), node.name);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  }
  return (
    <Space direction="vertical">
      <Button type="primary" icon={<DownloadOutlined />} onClick={() => void download()} loading={busy}>
        {label ?? t('file.download')}
      </Button>
      <ErrorMessage error={error} />
    </Space>
  );
}
