/** Set by vite.config.ts: this build's release (scripts/release.ts). */
declare const __CONSOLE_RELEASE__: string;
