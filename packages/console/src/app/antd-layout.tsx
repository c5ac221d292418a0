import { theme as antTheme, ConfigProvider } from 'antd';
import enUS from 'antd/locale/en_US';
import zhCN from 'antd/locale/zh_CN';
import { Suspense } from 'react';
import { useTranslation } from 'react-i18next';
import { Outlet, useLocation } from 'react-router';
import { ErrorBoundary } from '../components/error-boundary';
import { PageErrorFallback } from '../components/page-error';
import { useReducedMotion, useTheme } from './preferences';

/**
 * antd's default tokens fail WCAG AA contrast (4.5:1) for normal text: #1677ff on white (4.1),
 * white on #1677ff (4.1), secondary text at 45% black (3.4); in dark, links #1668dc (3.6) and
 * secondary text at 45% white (4.4); placeholders and danger buttons likewise. The accessibility
 * test found them; these
 * tokens are the smallest change that passes (contrast 5.5–6.2). Links follow colorLink (from
 * colorInfo), not colorPrimary: both are set.
 */
const TOKENS = {
  light: {
    colorPrimary: '#0958d9',
    colorLink: '#0958d9',
    colorTextTertiary: 'rgba(0, 0, 0, 0.6)',
    colorTextDescription: 'rgba(0, 0, 0, 0.6)',
    colorTextPlaceholder: 'rgba(0, 0, 0, 0.6)',
    colorError: '#cf1322',
  },
  dark: {
    colorLink: '#4096ff',
    colorTextTertiary: 'rgba(255, 255, 255, 0.55)',
    colorTextDescription: 'rgba(255, 255, 255, 0.55)',
    colorTextPlaceholder: 'rgba(255, 255, 255, 0.55)',
    colorError: '#ff7875',
  },
} as const;

/**
 * antd's locale and theme for every page built with it: a lazy layout, so the sign-in page (plain
 * elements, the first thing a person loads) comes without antd (issue 25's size budget).
 */
export default function AntdLayout() {
  const { i18n } = useTranslation();
  const theme = useTheme();
  const still = useReducedMotion();
  const { pathname } = useLocation();
  return (
    <ConfigProvider
      locale={i18n.language === 'en' ? enUS : zhCN}
      wave={{ disabled: still }}
      theme={{
        algorithm: theme === 'dark' ? antTheme.darkAlgorithm : antTheme.defaultAlgorithm,
        token: { ...TOKENS[theme], motion: !still },
        // in dark, the selected tab is written in colorPrimary (#1668dc on black, 4.0)
        components: theme === 'dark' ? { Tabs: { itemSelectedColor: '#4096ff' } } : undefined,
      }}
    >
      {/* what a page outside the shell throws (consent, share links), or the shell itself */}
      <ErrorBoundary resetKey={pathname} fallback={PageErrorFallback}>
        <Suspense>
          <Outlet />
        </Suspense>
      </ErrorBoundary>
    </ConfigProvider>
  );
}
