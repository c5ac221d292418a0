import { cpus } from 'node:os';
import { performance } from 'node:perf_hooks';
import {
  type DownloadResult,
  downloads,
  FILE_SIZE,
  type FileRow,
  FULL_DOWNLOADS,
  json,
  MiB,
  RANGE_CONCURRENCY,
  RANGE_REQUESTS,
  request,
  type TestFile,
} from './files.ts';

/**
 * The share-link rows of `npm run bench` (issue 15): the drive file downloaded anonymously through
 * a share link, against the signed-in drive download of the same run (≥ 0.9×); and share-link
 * password checks per second, against the bare password verification of the same hash in this
 * process (argon2id by design: the check is meant to be slow, so the ratio says how much the
 * route adds, not how fast the hash is).
 */
const PASSWORD_CHECKS = 200;
const PASSWORD_CONCURRENCY = 4;
/** links must expire (externalShareMaxDays defaults to 30) */
const expiresAt = () => new Date(Date.now() + 86_400_000).toISOString();

export async function shareLinkRows(
  base: string,
  token: string,
  file: TestFile,
  fileNodeId: number,
  pid: number | undefined,
  drive: DownloadResult,
): Promise<FileRow[]> {
  const link = await json<{ token: string }>(`${base}/api/drive/share-links`, 'POST', token, {
    nodeId: fileNodeId,
    expiresAt: expiresAt(),
    capabilities: ['preview', 'download'],
  });
  const url = `${base}/api/drive/public/shares/${link.token}/content`;
  const d = await downloads(url, {}, file, pid, `"${file.sha256}"`);
  const password = await passwordChecks(base, token, fileNodeId);
  return [
    {
      scenario: `share link download: GET /api/drive/public/shares/:token/content, anonymous, ${FILE_SIZE / MiB} MiB × ${FULL_DOWNLOADS}`,
      value: d.fullMiBs,
      unit: 'MiB/s',
      baseline: drive.fullMiBs,
      goal: 0.9,
      rss: { ...d.full, process: 'service' },
      note: 'share-link rows: the yardstick of the downloads is the signed-in drive download of the same run (GET /api/drive/nodes/:id/content)',
    },
    {
      scenario: `share link download: ${RANGE_REQUESTS} × 1 MiB Range GET, ${RANGE_CONCURRENCY} conns`,
      value: d.rangeReqs,
      unit: 'req/s',
      baseline: drive.rangeReqs,
      goal: 0.9,
      rss: { ...d.range, process: 'service' },
    },
    {
      scenario: `share link password checks: POST …/password, ${PASSWORD_CHECKS} × correct, ${PASSWORD_CONCURRENCY} conns`,
      value: password.route,
      unit: 'req/s',
      baseline: password.bare,
      rss: null,
      note:
        `share-link password checks: the yardstick is argon2id verify of the same hash in the bench process, ${PASSWORD_CHECKS} × with ${PASSWORD_CONCURRENCY} at once ` +
        `(${password.bare.toFixed(0)}/s on ${cpus().length} cores); each route call also counts an access, logs it and opens a session in the cache; no target: the hash bounds it by design`,
    },
  ];
}

/** Correct password checks per second through the route, and the bare verification of the same hash. */
async function passwordChecks(base: string, token: string, nodeId: number) {
  const password = 'bench-share-password';
  const link = await json<{ token: string }>(`${base}/api/drive/share-links`, 'POST', token, {
    nodeId,
    password,
    expiresAt: expiresAt(),
  });
  const url = `${base}/api/drive/public/shares/${link.token}/password`;
  const body = JSON.stringify({ password });
  const route = await perSecond(async () => {
    const res = await request(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    if (res.status !== 200) throw new Error(`password check answered ${res.status}`);
  });
  const { hashPassword, verifyPassword } = await import('../packages/server/src/platform/crypto/passwords.ts');
  const hash = await hashPassword(password);
  const bare = await perSecond(async () => {
    if (!(await verifyPassword(hash, password))) throw new Error('bare verify failed');
  });
  return { route, bare };
}

async function perSecond(call: () => Promise<void>): Promise<number> {
  for (let i = 0; i < PASSWORD_CONCURRENCY; i++) await call();
  let left = PASSWORD_CHECKS;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: PASSWORD_CONCURRENCY }, async () => {
      while (left-- > 0) await call();
    }),
  );
  return PASSWORD_CHECKS / ((performance.now() - started) / 1000);
}
