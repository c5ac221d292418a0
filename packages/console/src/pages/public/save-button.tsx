import { Alert, Button, Space } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ErrorMessage } from '../../components/error-message';
import { saveToMyDrive, useDownloadsTaken } from './share-api';
import { useSignedIn } from './use-signed-in';

/** "Save to my drive": for signed-in visitors of a link with the save capability only. */
export function SaveButton({
  token,
  nodeId,
  allowed,
  usedUp,
}: {
  token: string;
  nodeId: number;
  allowed: boolean;
  /** the link allows no more downloads, and a save takes one */
  usedUp?: boolean;
}) {
  const { t } = useTranslation('share');
  const signedIn = useSignedIn();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [savedAs, setSavedAs] = useState<string | null>(null);
  const downloads = useDownloadsTaken(token);
  if (!allowed || !signedIn) return null;

  async function save() {
    setBusy(true);
    setError(null);
    try {
      setSavedAs((await saveToMyDrive(token, nodeId)).node.name);
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
      <Button onClick={() => void save()} loading={busy} disabled={usedUp}>
        {t('save.button')}
      </Button>
      {/* an Alert, not green text: antd's success text misses the 4.5:1 contrast (axe color-contrast) */}
      {savedAs ? <Alert type="success" showIcon role="status" title={t('save.done', { name: savedAs })} /> : null}
      <ErrorMessage error={error} />
    </Space>
  );
}
