import { Layout, Segmented, Space, Typography } from 'antd';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { setTheme, useTheme } from '../../app/preferences';
import { LANGUAGES, type Language, setLanguage } from '../../i18n';

/** The frame of the public pages: no menu, no account; the reader's theme and language only. */
export function PublicLayout({ children }: { children: ReactNode }) {
  const { t, i18n } = useTranslation();
  const theme = useTheme();
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
          <Segmented
            aria-label={t('theme.label')}
            value={theme}
            options={[
              { value: 'light', label: t('theme.light') },
              { value: 'dark', label: t('theme.dark') },
            ]}
            onChange={(v) => setTheme(v as 'light' | 'dark')}
          />
          <Segmented
            aria-label={t('language')}
            value={i18n.language}
            options={LANGUAGES.map((l) => ({ value: l, label: l === 'en' ? 'English' : '中文' }))}
            onChange={(v) => setLanguage(v as Language)}
          />
        </Space>
      </Layout.Header>
      <Layout.Content style={{ padding: 16 }}>
        <main style={{ maxWidth: 960, margin: '0 auto' }}>{children}</main>
      </Layout.Content>
    </Layout>
  );
}
