import type { DriveCaller } from '../access/access-service.ts';
import type { DriveCore } from '../core.ts';
import { driveErrors } from '../errors.ts';
import { findNode } from '../nodes/node-repository.ts';
import { allows } from '../roles.ts';
import { findSpace } from '../spaces/space-repository.ts';
import { findLink } from './shares-repository.ts';

/**
 * A share link with its node and space, when the caller created it or manages its node
 * ('manageLinks'); anyone else gets not found, so a link's existence does not leak. The one read
 * rule of a link: its management (shares-service) and its access records (audit/) apply it.
 */
export async function manageableLink(core: Pick<DriveCore, 'db' | 'access'>, c: DriveCaller, id: number) {
  const link = await findLink(core.db, c.scope, id);
  if (!link) throw driveErrors.shareLinkNotFound();
  const node = await findNode(core.db, c.scope, link.nodeId);
  const space = node ? await findSpace(core.db, c.scope, node.spaceId) : null;
  if (!node || !space) throw driveErrors.shareLinkNotFound();
  if (link.createdBy !== c.userId && !allows(await core.access.nodeRole(c, node, space), 'manageLinks'))
    throw driveErrors.shareLinkNotFound();
  return { link, node, space };
}
