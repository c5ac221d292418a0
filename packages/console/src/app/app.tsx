import { theme as antTheme, ConfigProvider } from 'antd';
import enUS from 'antd/locale/en_US';
import zhCN from 'antd/locale/zh_CN';
import { Suspense } from 'react';
import { useTranslation } from 'react-i18next';
import { BrowserRouter } from 'react-router';
import '../i18n';
import { useTheme } from './preferences';
import { AppRoutes } from './routes';

/** The console's providers: antd's locale and theme (light or dark), the routes. */
export function App() {
  const { i18n } = useTranslation();
  const theme = useTheme();
  return (
    <ConfigProvider
      locale={i18n.language === 'en' ? enUS : zhCN}
      theme={{ algorithm: theme === 'dark' ? antTheme.darkAlgorithm : antTheme.defaultAlgorithm }}
    >
      <BrowserRouter>
        <Suspense>
          <AppRoutes />
        </Suspense>
      </BrowserRouter>
    </ConfigProvider>
  );
}
