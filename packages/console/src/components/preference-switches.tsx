import { Segmented } from 'antd';
import { useTranslation } from 'react-i18next';
import { setTheme, type Theme, useTheme } from '../app/preferences';
import { LANGUAGES, type Language, setLanguage } from '../i18n';

/** The person's theme and language switches, the same in the shell and on the public pages. */
export function PreferenceSwitches() {
  const { t, i18n } = useTranslation();
  const theme = useTheme();
  return (
    <>
      <Segmented
        aria-label={t('theme.label')}
        value={theme}
        options={[
          { value: 'light', label: t('theme.light') },
          { value: 'dark', label: t('theme.dark') },
        ]}
        onChange={(v) => setTheme(v as Theme)}
      />
      <Segmented
        aria-label={t('language')}
        value={i18n.language}
        options={LANGUAGES.map((l) => ({ value: l, label: l === 'en' ? 'English' : '中文' }))}
        onChange={(v) => setLanguage(v as Language)}
      />
    </>
  );
}
