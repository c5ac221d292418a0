import { Layout, Space, Typography } from 'antd';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { PreferenceSwitches } from '../../components/preference-switches';

/** The frame of the public pages: no menu, no account; the reader's theme and language only. */
export function PublicLayout({ children }: { children: ReactNode }) {
  const { t } = useTranslation();
  return (
    <Layout style={{ minHeight: '100vh' }}>
      <Layout.Header
        style={{
          display: 'flex',
          alignItems: 'center',
          justifyContent: 'space-between',
          paddingInline: 16,
          background: 'transparent',
          flexWrap: 'wrap',
          height: 'auto',
          gap: 8,
        }}
      >
        <Typography.Text strong>{t('appName')}</Typography.Text>
        <Space wrap>
          <PreferenceSwitches />
        </Space>
      </Layout.Header>
      <Layout.Content style={{ padding: 16 }}>
        <main style={{ maxWidth: 960, margin: '0 auto' }}>{children}</main>
      </Layout.Content>
    </Layout>
  );
}
