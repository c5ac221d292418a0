import { randomBytes } from 'node:crypto';
import { driveShareLinks } from '../../src/modules/drive/tables.ts';
import { sha256 } from '../../src/platform/crypto/digest.ts';
import { hashPassword } from '../../src/platform/crypto/passwords.ts';
import { platformKey } from '../../src/platform/db/tenant-key.ts';
import type { TestApp } from '../helpers/app.ts';

type LinkOpts = Partial<Omit<typeof driveShareLinks.$inferInsert, 'passwordHash'>> & { password?: string };

/** A share link row written directly (link management is another area); returns the row and its token. */
export async function shareLink(
  t: TestApp,
  node: { id: number; spaceId: number; tenantId: number | null },
  createdBy: number,
  opts: LinkOpts = {},
) {
  const token = randomBytes(16).toString('hex');
  const { password, ...rest } = opts;
  const [row] = await t.database.db
    .insert(driveShareLinks)
    .values({
      tenantId: platformKey(node.tenantId),
      spaceId: node.spaceId,
      nodeId: node.id,
      tokenHash: sha256(token),
      tokenEncrypted: 'test',
      passwordHash: password ? await hashPassword(password) : null,
      capabilities: ['preview', 'download'],
      createdBy,
      ...rest,
    })
    .returning();
  if (!row) throw new Error('link insert failed');
  return { ...row, token };
}
