import { Type } from 'typebox';

/**
 * Every link the service hands out is absolute (docs/decisions/0028-absolute-links.md): built here,
 * from the public base URL — PUBLIC_BASE_URL, else http://HOST:PORT in development — so a link
 * works wherever it is read: a mail client, a phone, a chat bot, a printed QR code.
 */
export type PublicLinks = {
  /** The public base URL, without a trailing slash (also the OAuth issuer). */
  readonly base: string;
  /** The absolute URL of one of the service's own paths: an API route or a console route. */
  to(path: `/${string}`): string;
  /**
   * A deep link made absolute for a reader outside the console (email, push, webhook, chat card):
   * a path goes under the base URL (keeping the base's own path), an http(s) URL stays as given,
   * anything else (`javascript:`, `mailto:`, not a URL) is no link: null.
   */
  resolve(link: string | null | undefined): string | null;
};

export function createPublicLinks(publicBaseUrl: string): PublicLinks {
  const base = publicBaseUrl.replace(/\/+$/, '');
  return {
    base,
    to: (path) => `${base}${path}`,
    resolve(link) {
      if (!link) return null;
      try {
        // `new URL('/x', base)` would drop the base's path (https://host/office/x → https://host/x)
        const url =
          link.startsWith('/') && !link.startsWith('//') ? new URL(`${base}${link}`) : new URL(link, `${base}/`);
        return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : null;
      } catch {
        return null;
      }
    },
  };
}

/** A response field holding a link built by PublicLinks: `format: uri` tells clients it is absolute. */
export const AbsoluteUrl = (description: string) =>
  Type.String({ format: 'uri', description: `absolute URL (from PUBLIC_BASE_URL): ${description}` });
