import { theme as antTheme, ConfigProvider } from 'antd';
import enUS from 'antd/locale/en_US';
import zhCN from 'antd/locale/zh_CN';
import { Suspense } from 'react';
import { useTranslation } from 'react-i18next';
import { Outlet } from 'react-router';
import { useTheme } from './preferences';

/**
 * antd's locale and theme for every page built with it: a lazy layout, so the sign-in page (plain
 * elements, the first thing a person loads) comes without antd (issue 25's size budget).
 */
export default function AntdLayout() {
  const { i18n } = useTranslation();
  const theme = useTheme();
  return (
    <ConfigProvider
      locale={i18n.language === 'en' ? enUS : zhCN}
      theme={{ algorithm: theme === 'dark' ? antTheme.darkAlgorithm : antTheme.defaultAlgorithm }}
    >
      <Suspense>
        <Outlet />
      </Suspense>
    </ConfigProvider>
  );
}
