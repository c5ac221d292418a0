import { api, unwrap } from '../../api/client';

/**
 * The person's own notifications as the bell reads them. Keys stay under
 * ['notifications', 'inapp' | 'announcements'], the prefixes the live hub invalidates.
 */
export const bellKeys = {
  inappUnread: ['notifications', 'inapp', 'unread-count'],
  announcementUnread: ['notifications', 'announcements', 'unread-count'],
  inappLatest: ['notifications', 'inapp', 'latest'],
  announcementLatest: ['notifications', 'announcements', 'latest'],
} as const;

export const inappUnreadCount = () => unwrap(api.GET('/api/in-app-messages/unread-count'));
export const announcementUnreadCount = () => unwrap(api.GET('/api/announcements/unread-count'));
export const latestMessages = () =>
  unwrap(api.GET('/api/in-app-messages', { params: { query: { page: 1, pageSize: 5 } } }));
export const latestAnnouncements = () =>
  unwrap(api.GET('/api/announcements/inbox', { params: { query: { page: 1, pageSize: 3, isRead: false } } }));
export const readMessage = (id: number) =>
  unwrap(api.POST('/api/in-app-messages/{id}/read', { params: { path: { id } } }));
export const readAnnouncement = (id: number) =>
  unwrap(api.POST('/api/announcements/{id}/read', { params: { path: { id } } }));
export const readAll = () =>
  Promise.all([unwrap(api.POST('/api/in-app-messages/read-all')), unwrap(api.POST('/api/announcements/read-all'))]);

/** A message's deep link: a console route opens in the console, anything else in a new tab. */
export function linkTarget(link: string | null | undefined): { route: string } | { href: string } | null {
  if (!link) return null;
  if (link.startsWith('/') && !link.startsWith('//')) return { route: link };
  try {
    const url = new URL(link, window.location.href);
    if (url.origin === window.location.origin) return { route: `${url.pathname}${url.search}${url.hash}` };
    if (url.protocol === 'https:' || url.protocol === 'http:') return { href: url.toString() };
  } catch {
    // not a URL: no link
  }
  return null;
}
