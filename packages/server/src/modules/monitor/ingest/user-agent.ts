/**
 * Browser and OS of a User-Agent header, for the distribution charts (spec §4.6 detail).
 * A few ordered checks, no dependency: Edge and HeadlessChrome also say "Chrome", Chrome also says
 * "Safari", and iPadOS and iOS also say "Mac OS X", so the more specific names are tested first.
 */
const BROWSERS: [name: string, pattern: RegExp][] = [
  ['Edge', /\bEdg(?:e|A|iOS)?\/(\d+)/],
  ['HeadlessChrome', /\bHeadlessChrome\/(\d+)/],
  ['Firefox', /\b(?:Firefox|FxiOS)\/(\d+)/],
  ['Chrome', /\b(?:Chrome|CriOS)\/(\d+)/],
  ['Safari', /\bVersion\/(\d+)[\d.]* (?:Mobile\/\S+ )?Safari\//],
];

const SYSTEMS: [name: string, pattern: RegExp][] = [
  ['Windows', /\bWindows\b/],
  ['iOS', /\b(?:iPhone|iPad|iPod)\b/],
  ['Android', /\bAndroid\b/],
  ['macOS', /\bMac OS X\b|\bMacintosh\b/],
  ['Linux', /\bLinux\b|\bX11\b/],
];

export type ClientInfo = { browser: string; os: string };

/** `{ browser: 'Chrome 120', os: 'macOS' }`; 'Other' for what is not recognised, '' without a header. */
export function parseUserAgent(ua: string): ClientInfo {
  if (!ua) return { browser: '', os: '' };
  let browser = 'Other';
  for (const [name, pattern] of BROWSERS) {
    const m = pattern.exec(ua);
    if (m) {
      browser = `${name} ${m[1]}`;
      break;
    }
  }
  const os = SYSTEMS.find(([, pattern]) => pattern.test(ua))?.[0] ?? 'Other';
  return { browser, os };
}
