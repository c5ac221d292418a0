import i18n from 'i18next';
import { initReactI18next } from 'react-i18next';
import enAuth from './en/auth.json';
import enCommon from './en/common.json';
import enErrors from './en/errors.json';
import enIdentity from './en/identity.json';
import enMenu from './en/menu.json';
import enNotifications from './en/notifications.json';
import enOAuth from './en/oauth.json';
import enProfile from './en/profile.json';
import enShare from './en/share.json';
import zhAuth from './zh-CN/auth.json';
import zhCommon from './zh-CN/common.json';
import zhErrors from './zh-CN/errors.json';
import zhIdentity from './zh-CN/identity.json';
import zhMenu from './zh-CN/menu.json';
import zhNotifications from './zh-CN/notifications.json';
import zhOAuth from './zh-CN/oauth.json';
import zhProfile from './zh-CN/profile.json';
import zhShare from './zh-CN/share.json';

/** zh-CN by default, en; both have the same keys (test/i18n.test.ts). One namespace per area. */
export const LANGUAGES = ['zh-CN', 'en'] as const;
export type Language = (typeof LANGUAGES)[number];

export const resources = {
  'zh-CN': {
    common: zhCommon,
    auth: zhAuth,
    errors: zhErrors,
    identity: zhIdentity,
    menu: zhMenu,
    notifications: zhNotifications,
    oauth: zhOAuth,
    profile: zhProfile,
    share: zhShare,
  },
  en: {
    common: enCommon,
    auth: enAuth,
    errors: enErrors,
    identity: enIdentity,
    menu: enMenu,
    notifications: enNotifications,
    oauth: enOAuth,
    profile: enProfile,
    share: enShare,
  },
} as const;

export function storedLanguage(): Language {
  const stored = localStorage.getItem('atrium.language');
  return (LANGUAGES as readonly string[]).includes(stored ?? '') ? (stored as Language) : 'zh-CN';
}

void i18n.use(initReactI18next).init({
  resources,
  lng: storedLanguage(),
  fallbackLng: 'zh-CN',
  defaultNS: 'common',
  interpolation: { escapeValue: false },
});
document.documentElement.lang = i18n.language;

export function setLanguage(language: Language) {
  localStorage.setItem('atrium.language', language);
  document.documentElement.lang = language;
  void i18n.changeLanguage(language);
}

export default i18n;
