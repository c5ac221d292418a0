import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../platform/context.ts';
import { createCredentialCookies } from '../../platform/http/credential-cookies.ts';
import { uploadBodies } from '../../platform/http/upload-bodies.ts';
import type { FilesModule } from '../files/index.ts';
import type { Notifier } from '../messaging/index.ts';
import { createAccessService } from './access/access-service.ts';
import type { DriveDirectory } from './access/types.ts';
import { createActivityLog } from './activities/activity-service.ts';
import { createActivityFeedService } from './activities/feed-service.ts';
import { activityRoutes } from './activities/routes.ts';
import { accessLogExportKind } from './audit/access-logs-export.ts';
import { createAccessLogsService, type StartTask } from './audit/access-logs-service.ts';
import { createBehaviorAlerts } from './audit/behavior-alerts.ts';
import { createLinkDigest } from './audit/digest-service.ts';
import { accessLogRoutes } from './audit/routes.ts';
import { createCollectService } from './collect/collect-service.ts';
import { collectRoutes } from './collect/routes.ts';
import type { DriveCore } from './core.ts';
import { driveJobs } from './jobs.ts';
import { createNodesArea, nodeRoutes } from './nodes/index.ts';
import { createGrantsService } from './permissions/grants-service.ts';
import { createRemindersService } from './permissions/reminders-service.ts';
import { permissionRoutes } from './permissions/routes.ts';
import { createPreviewService } from './previews/index.ts';
import { createPublicShareService } from './public/public-service.ts';
import { publicShareRoutes } from './public/routes.ts';
import { createPublicSaveService } from './public/save-service.ts';
import { createShareSessionCookie } from './public/session-cookie.ts';
import { createRecycleArea } from './recycle/index.ts';
import { createRequestsService } from './requests/requests-service.ts';
import { requestRoutes } from './requests/routes.ts';
import { driveSettings } from './settings.ts';
import { createQrCodes } from './shares/qr-code.ts';
import { shareLinkRoutes } from './shares/routes.ts';
import { createSharesService } from './shares/shares-service.ts';
import { shortLinkRoutes } from './shares/short-link-routes.ts';
import { createShortLinksService } from './shares/short-links-service.ts';
import { spaceManagerIds } from './spaces/managers.ts';
import { createSpaceMembersService } from './spaces/members-service.ts';
import { spaceRoutes } from './spaces/routes.ts';
import { createSpacesService } from './spaces/spaces-service.ts';
import { createUsageService } from './spaces/usage-service.ts';
import { uploadRoutes } from './uploads/routes.ts';
import { createUploadsService } from './uploads/uploads-service.ts';
import { versionRoutes } from './versions/routes.ts';
import { createVersionStore } from './versions/version-store.ts';
import { createVersionsService } from './versions/versions-service.ts';

declare module 'fastify' {
  interface FastifyInstance {
    drive: DriveModule;
  }
}

export type { DriveDirectory, GrantSubject, GrantSubjects } from './access/types.ts';
export { driveEvents } from './events.ts';

/**
 * The enterprise drive (spec §2.2, §3.5, §4.3, §5.5): spaces, the node tree, roles and grants,
 * uploads and content, versions, the recycle bin, locks, legal holds and activities, built on
 * the files module's managed files. Each area (`spaces/`, `nodes/`, `uploads/`, `recycle/`,
 * `permissions/`) has the module shape; `core.ts` is what they share.
 */
export function createDriveModule(
  ctx: AppContext,
  deps: { directory: DriveDirectory; files: FilesModule; notify: Notifier['notify']; startTask: StartTask },
) {
  ctx.settingsRegistry.register(driveSettings);
  const { db, clock } = ctx;
  const access = createAccessService({ db, clock, directory: deps.directory });
  const activities = createActivityLog({ db, clock });
  const usage = createUsageService({
    db,
    clock,
    settings: ctx.settings,
    notify: deps.notify,
    managersOf: (_scope, space) => spaceManagerIds(db, deps.directory, space),
  });
  const versions = createVersionStore({ files: deps.files, usage, clock });
  const { startTask, ...faces } = deps;
  const alerts = createBehaviorAlerts(
    { db, clock, cache: ctx.cache, settings: ctx.settings, directory: deps.directory, notify: deps.notify },
    ctx.log,
  );
  const core: DriveCore = {
    db,
    clock,
    cache: ctx.cache,
    settings: ctx.settings,
    ...faces,
    access,
    activities,
    usage,
    versions,
    alerts,
  };

  // areas: built here from the core (each adds its line)
  const spaces = createSpacesService(core);
  const spaceMembers = createSpaceMembersService(core);
  const recycleArea = createRecycleArea(core);
  const uploads = createUploadsService({ ...core, log: ctx.log });
  const versionsService = createVersionsService({ ...core, log: ctx.log });
  const nodeArea = createNodesArea(core);
  const grants = createGrantsService(core);
  const activityFeed = createActivityFeedService(core);
  const accessRequests = createRequestsService(core);
  const reminders = createRemindersService(core);
  const previews = createPreviewService(core);
  const publicShares = createPublicShareService(core, previews);
  const shareSessionCookie = createShareSessionCookie(createCredentialCookies(ctx.config));
  const linkDeps = { ...core, secrets: ctx.secrets, links: ctx.links };
  const shares = createSharesService(linkDeps);
  const shortLinks = createShortLinksService(linkDeps, shares);
  const qrCodes = createQrCodes(core, shares);
  const publicSaves = createPublicSaveService(core, nodeArea.copySubtree);
  const accessLogs = createAccessLogsService({ ...core, startTask });
  const linkDigest = createLinkDigest(core);
  const collect = createCollectService({ ...core, log: ctx.log }, { uploads, shares });

  ctx.jobs.register(driveJobs, () => ({
    clock,
    ensureActivityPartitions: async (now: Date) => {
      const made = await activities.ensurePartitions(now);
      const logs = await activities.ensurePartitions(now, 'drive_share_access_logs');
      return { partitions: [...made.partitions, ...logs.partitions] };
    },
    purgeExpiredRecycleBin: recycleArea.recycle.purgeExpired,
    expireUploadBindings: uploads.expireUploadBindings,
    remindExpiringGrants: reminders.remindExpiringGrants,
    remindExpiringLinks: reminders.remindExpiringLinks,
    sendLinkDigests: linkDigest.sendDigests,
  }));

  const mod = {
    core,
    previews,
    reminders,
    linkDigest,
    /** task kind drive.share_access_logs, for the task center (app.ts registers it) */
    accessLogExportKind: accessLogExportKind(accessLogs),
    async register(app: FastifyInstance) {
      app.decorate('drive', mod);
      await app.register(async (scope) => {
        await uploadBodies(scope);
        // areas: routes (each adds its line)
        spaceRoutes(scope, spaces, spaceMembers);
        recycleArea.routes(scope);
        uploadRoutes(scope, uploads);
        versionRoutes(scope, versionsService, uploads);
        nodeRoutes(scope, nodeArea);
        permissionRoutes(scope, grants);
        activityRoutes(scope, activityFeed);
        requestRoutes(scope, accessRequests);
        publicShareRoutes(scope, publicShares, publicSaves, shareSessionCookie);
        accessLogRoutes(scope, accessLogs);
        shareLinkRoutes(scope, shares);
        shortLinkRoutes(scope, shortLinks, qrCodes);
        collectRoutes(scope, collect);
      });
    },
  };
  return mod;
}

export type DriveModule = ReturnType<typeof createDriveModule>;
