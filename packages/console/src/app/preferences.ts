import { useSyncExternalStore } from 'react';

/** The person's theme, kept in this browser; public/theme-boot.js applied it before the first paint. */
export type Theme = 'light' | 'dark';
const listeners = new Set<() => void>();

export const currentTheme = (): Theme => (document.documentElement.dataset.theme === 'dark' ? 'dark' : 'light');

export function setTheme(theme: Theme) {
  localStorage.setItem('atrium.theme', theme);
  document.documentElement.dataset.theme = theme;
  document.documentElement.style.colorScheme = theme;
  document.documentElement.style.background = theme === 'dark' ? '#141414' : '#ffffff';
  for (const l of listeners) l();
}

export function useTheme(): Theme {
  return useSyncExternalStore((l) => {
    listeners.add(l);
    return () => listeners.delete(l);
  }, currentTheme);
}

const REDUCED_MOTION = '(prefers-reduced-motion: reduce)';

/** The person asked their system for less motion (WCAG 2.3.3): antd's animations and waves stay off. */
export function useReducedMotion(): boolean {
  return useSyncExternalStore(
    (l) => {
      const query = window.matchMedia(REDUCED_MOTION);
      query.addEventListener('change', l);
      return () => query.removeEventListener('change', l);
    },
    () => window.matchMedia(REDUCED_MOTION).matches,
  );
}
