import type { AppContext } from '../../../platform/context.ts';
import type { MessagingArea, MessagingDeps } from '../deps.ts';
import { createInboxService } from './inbox-service.ts';
import { adminRoutes } from './routes/admin.ts';
import { inboxRoutes } from './routes/inbox.ts';
import { type Audience, createAnnouncementService } from './service.ts';

/** Announcements: admin CRUD and publish, targets, inbox, reads and read stats. */
export function createAnnouncements(ctx: AppContext, deps: MessagingDeps): MessagingArea {
  const audience: Audience = deps;
  const announcements = createAnnouncementService(ctx, audience);
  const inbox = createInboxService(ctx, audience);
  return {
    register(app) {
      inboxRoutes(app, inbox);
      adminRoutes(app, announcements);
    },
  };
}
