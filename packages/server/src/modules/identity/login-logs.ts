import type { Db } from '../../platform/db/client.ts';
import { loginLogs } from './tables.ts';

export async function insertLoginLog(
  db: Db,
  row: {
    tenantId: number | null;
    userId: number | null;
    username: string;
    ip: string;
    userAgent: string;
    success: boolean;
    reason: string;
  },
) {
  await db
    .insert(loginLogs)
    .values({ ...row, username: row.username.slice(0, 128), userAgent: row.userAgent.slice(0, 512) });
}
