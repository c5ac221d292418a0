import { AppError } from '../../../platform/http/errors.ts';

/** Errors of announcements (`messaging.*`). */
export const announcementErrors = {
  notFound: (ids?: number[]) =>
    new AppError(404, 'messaging.announcement_not_found', 'announcement not found', {
      ...(ids ? { details: ids.map((id) => ({ field: 'ids', message: `no announcement with id ${id}` })) } : {}),
    }),
  published: () =>
    new AppError(
      409,
      'messaging.announcement_published',
      'A published announcement cannot be changed; withdraw it first',
    ),
  notPublished: () =>
    new AppError(409, 'messaging.announcement_not_published', 'Only a published announcement can be withdrawn'),
  expired: () =>
    new AppError(
      409,
      'messaging.announcement_expired',
      'The expireTime has passed; set a later one before publishing',
      {
        details: [{ field: 'expireTime', message: 'has passed' }],
      },
    ),
};
