import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream, readFileSync } from 'node:fs';
import { open, unlink } from 'node:fs/promises';
import http from 'node:http';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { shareLinkRows } from './drive-shares.ts';

/**
 * The file scenarios of `npm run bench` (issue 3, scope item 8): a 256 MiB file of random bytes
 * uploaded in one request and in chunks, as MiB/s and as a ratio to writing the same bytes to the
 * same disk; full and Range downloads as a ratio to `@fastify/static` serving the same file; the
 * service's RSS sampled every 100 ms during each scenario. Every body streams: nothing here holds
 * the file in memory, on the client side either.
 */
export const MiB = 1024 * 1024;
export const FILE_SIZE = 256 * MiB;
export const CHUNK_SIZE = 8 * MiB;
export const FULL_DOWNLOADS = 3;
export const RANGE_REQUESTS = 1000;
export const RANGE_WARMUP = 50;
export const RANGE_SIZE = MiB;
export const RANGE_CONCURRENCY = 10;
const FILE_NAME = 'bench-256mib.bin';

export type TestFile = { dir: string; name: string; path: string; size: number; sha256: string };
export type Rss = { startMiB: number; peakMiB: number };
export type FileRow = {
  scenario: string;
  value: number;
  unit: 'MiB/s' | 'req/s';
  /** the yardstick's value in the same unit; null for a yardstick row */
  baseline: number | null;
  /** the target for value ÷ baseline */
  goal?: number;
  rss: (Rss & { process: string }) | null;
  note?: string;
};
export type DownloadResult = { fullMiBs: number; rangeReqs: number; rangeMiBs: number; full: Rss; range: Rss };

/** Streams FILE_SIZE random bytes to `<dir>/bench-256mib.bin`, 1 MiB at a time, hashing as it goes. */
export async function createTestFile(dir: string): Promise<TestFile> {
  const path = join(dir, FILE_NAME);
  const hash = createHash('sha256');
  async function* bytes() {
    for (let left = FILE_SIZE; left > 0; left -= MiB) {
      const b = randomBytes(Math.min(MiB, left));
      hash.update(b);
      yield b;
    }
  }
  await pipeline(Readable.from(bytes()), createWriteStream(path, { flags: 'wx' }));
  return { dir, name: FILE_NAME, path, size: FILE_SIZE, sha256: hash.digest('hex') };
}

/** VmRSS of a process in MiB (0 when /proc is not there). */
export function rssMiB(pid: number | undefined): number {
  try {
    const m = readFileSync(`/proc/${pid}/status`, 'utf8').match(/^VmRSS:\s+(\d+) kB/m);
    return m ? Number(m[1]) / 1024 : 0;
  } catch {
    return 0;
  }
}

/** Runs `work` while sampling the RSS of `pid` every 100 ms; answers its result, the RSS at start and the peak. */
export async function withRss<T>(pid: number | undefined, work: () => Promise<T>): Promise<{ result: T; rss: Rss }> {
  const startMiB = rssMiB(pid);
  let peakMiB = startMiB;
  const sample = () => {
    peakMiB = Math.max(peakMiB, rssMiB(pid));
  };
  const timer = setInterval(sample, 100);
  try {
    const result = await work();
    sample();
    return { result, rss: { startMiB, peakMiB } };
  } finally {
    clearInterval(timer);
  }
}

/**
 * The upload yardstick: the same bytes copied, streaming, into a new file in `dir` (the service's
 * DATA_DIR, so the same filesystem), then fsync — as the local storage provider does before its
 * rename. Answers MiB/s.
 */
export async function diskWrite(file: TestFile, dir: string): Promise<number> {
  const target = join(dir, 'bench-disk-baseline.bin');
  const t0 = performance.now();
  await pipeline(createReadStream(file.path), createWriteStream(target, { flags: 'wx' }));
  const fh = await open(target, 'r+');
  try {
    await fh.sync();
  } finally {
    await fh.close();
  }
  const seconds = (performance.now() - t0) / 1000;
  await unlink(target);
  return file.size / MiB / seconds;
}

type Answer = { status: number; headers: http.IncomingHttpHeaders; text: string; bytes: number };

/**
 * One HTTP request over node:http (full control of Content-Length, streamed bodies). The answer's
 * body is kept as text when `keep` is set (JSON answers), else only counted and dropped.
 */
export function request(
  url: string,
  opts: {
    method: string;
    headers?: Record<string, string | number>;
    body?: Readable | string;
    agent?: http.Agent;
    keep?: boolean;
  },
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: opts.method, headers: opts.headers, agent: opts.agent }, (res) => {
      const parts: Buffer[] = [];
      let bytes = 0;
      res.on('data', (c: Buffer) => {
        bytes += c.length;
        if (opts.keep) parts.push(c);
      });
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          text: Buffer.concat(parts).toString('utf8'),
          bytes,
        }),
      );
      res.on('error', reject);
    });
    req.on('error', reject);
    if (opts.body instanceof Readable) {
      opts.body.on('error', (err) => req.destroy(err));
      opts.body.pipe(req);
    } else {
      req.end(opts.body);
    }
  });
}

export async function json<T>(url: string, method: string, token: string, body?: unknown): Promise<T> {
  const text = body === undefined ? undefined : JSON.stringify(body);
  const headers: Record<string, string | number> = { authorization: `Bearer ${token}` };
  if (text !== undefined) headers['content-type'] = 'application/json';
  const res = await request(url, { method, headers, body: text ?? '', keep: true });
  if (res.status < 200 || res.status > 299) throw new Error(`${method} ${url} answered ${res.status}: ${res.text}`);
  return (JSON.parse(res.text) as { data: T }).data;
}

/**
 * Lets one request carry the whole file: the platform `files` settings raise the single-request
 * threshold above 256 MiB and allow `application/octet-stream` (random bytes sniff as nothing, so
 * the declared type is the stored one).
 */
export async function prepareSettings(base: string, token: string) {
  const view = await json<{ values: { mimeAllowList: string[] } }>(`${base}/api/settings/files`, 'GET', token);
  const allow = view.values.mimeAllowList.includes('application/octet-stream')
    ? view.values.mimeAllowList
    : [...view.values.mimeAllowList, 'application/octet-stream'];
  await json(`${base}/api/settings/files`, 'PUT', token, {
    chunkThresholdMb: Math.ceil(FILE_SIZE / MiB) + 44,
    maxSizeMb: 1024,
    mimeAllowList: allow,
  });
}

type Uploaded = { id: number; sha256: string; size: number };

function checkUploaded(file: TestFile, got: Uploaded, how: string) {
  if (got.size !== file.size || got.sha256 !== file.sha256) {
    throw new Error(`${how}: stored ${got.size} bytes with sha256 ${got.sha256}, sent ${file.size} / ${file.sha256}`);
  }
}

/**
 * One multipart request, the file part streamed from disk: POST /api/files by default, or another
 * upload route (the drive's). Answers the stored file and MiB/s.
 */
export async function uploadSimple(
  base: string,
  token: string,
  file: TestFile,
  target: { path: string; fields: Record<string, string> } = { path: '/api/files', fields: { visibility: 'private' } },
) {
  const boundary = `----atrium-bench-${randomBytes(12).toString('hex')}`;
  const fields = Object.entries(target.fields)
    .map(([k, v]) => `--${boundary}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`)
    .join('');
  const head = Buffer.from(
    fields +
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${file.name}"\r\n` +
      'Content-Type: application/octet-stream\r\n\r\n',
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  async function* body() {
    yield head;
    yield* createReadStream(file.path, { highWaterMark: MiB });
    yield tail;
  }
  const t0 = performance.now();
  const res = await request(`${base}${target.path}`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': `multipart/form-data; boundary=${boundary}`,
      'content-length': head.length + file.size + tail.length,
    },
    body: Readable.from(body(), { objectMode: false }),
    keep: true,
  });
  const seconds = (performance.now() - t0) / 1000;
  if (res.status !== 201) throw new Error(`POST ${target.path} answered ${res.status}: ${res.text}`);
  const uploaded = (JSON.parse(res.text) as { data: Uploaded }).data;
  checkUploaded(file, uploaded, `upload to ${target.path}`);
  return { file: uploaded, mibs: file.size / MiB / seconds };
}

/**
 * init → PUT every 8 MiB chunk in order (each streamed from its range of the file, one keep-alive
 * connection) → complete. Answers the file, MiB/s over the whole exchange and the share of complete.
 */
export async function uploadChunked(base: string, token: string, file: TestFile) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const auth = { authorization: `Bearer ${token}` };
  try {
    const t0 = performance.now();
    const session = await json<{ id: number; totalChunks: number }>(`${base}/api/files/uploads`, 'POST', token, {
      name: file.name,
      size: file.size,
      chunkSize: CHUNK_SIZE,
      declaredSha256: file.sha256,
      mime: 'application/octet-stream',
      visibility: 'private',
    });
    for (let i = 0; i < session.totalChunks; i++) {
      const start = i * CHUNK_SIZE;
      const end = Math.min(file.size, start + CHUNK_SIZE) - 1;
      const res = await request(`${base}/api/files/uploads/${session.id}/chunks/${i}`, {
        method: 'PUT',
        headers: { ...auth, 'content-type': 'application/octet-stream', 'content-length': end - start + 1 },
        body: createReadStream(file.path, { start, end, highWaterMark: MiB }),
        agent,
        keep: true,
      });
      if (res.status !== 200) throw new Error(`PUT chunk ${i} answered ${res.status}: ${res.text}`);
    }
    const t1 = performance.now();
    const res = await request(`${base}/api/files/uploads/${session.id}/complete`, {
      method: 'POST',
      headers: auth,
      agent,
      keep: true,
    });
    const t2 = performance.now();
    if (res.status !== 201) throw new Error(`complete answered ${res.status}: ${res.text}`);
    const uploaded = (JSON.parse(res.text) as { data: Uploaded }).data;
    checkUploaded(file, uploaded, 'chunked upload');
    return {
      file: uploaded,
      chunks: session.totalChunks,
      mibs: file.size / MiB / ((t2 - t0) / 1000),
      chunksSeconds: (t1 - t0) / 1000,
      completeSeconds: (t2 - t1) / 1000,
    };
  } finally {
    agent.destroy();
  }
}

/** FULL_DOWNLOADS sequential GETs of the whole file, bytes counted and dropped; MiB/s over all of them. */
export async function downloadFull(url: string, headers: Record<string, string>, file: TestFile, etag?: string) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  try {
    const t0 = performance.now();
    for (let i = 0; i < FULL_DOWNLOADS; i++) {
      const res = await request(url, { method: 'GET', headers, agent });
      if (res.status !== 200 || res.bytes !== file.size) {
        throw new Error(`GET ${url}: ${res.status}, ${res.bytes} bytes (expected 200, ${file.size})`);
      }
      if (etag && res.headers.etag !== etag) throw new Error(`GET ${url}: ETag ${res.headers.etag}, expected ${etag}`);
    }
    return (FULL_DOWNLOADS * file.size) / MiB / ((performance.now() - t0) / 1000);
  } finally {
    agent.destroy();
  }
}

/** The same pseudo-random 1 MiB ranges for the service and the yardstick (xorshift32, fixed seed). */
export function rangeHeaders(size: number, n: number, seed = 0x9e3779b9): string[] {
  let x = seed >>> 0;
  const next = () => {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    return x / 2 ** 32;
  };
  const out: string[] = [];
  for (let i = 0; i < n; i++) {
    const start = Math.floor(next() * (size - RANGE_SIZE + 1));
    out.push(`bytes=${start}-${start + RANGE_SIZE - 1}`);
  }
  return out;
}

/**
 * RANGE_REQUESTS Range GETs over RANGE_CONCURRENCY keep-alive connections (after RANGE_WARMUP
 * discarded ones); each must answer 206 with exactly RANGE_SIZE bytes. Answers req/s.
 */
export async function downloadRanges(url: string, headers: Record<string, string>, file: TestFile) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: RANGE_CONCURRENCY });
  const run = async (ranges: string[]) => {
    let next = 0;
    const worker = async () => {
      while (next < ranges.length) {
        const range = ranges[next++] as string;
        const res = await request(url, { method: 'GET', headers: { ...headers, range }, agent });
        if (res.status !== 206 || res.bytes !== RANGE_SIZE) {
          throw new Error(`GET ${url} (${range}): ${res.status}, ${res.bytes} bytes (expected 206, ${RANGE_SIZE})`);
        }
      }
    };
    await Promise.all(Array.from({ length: RANGE_CONCURRENCY }, worker));
  };
  try {
    await run(rangeHeaders(file.size, RANGE_WARMUP, 0x1234567));
    const t0 = performance.now();
    await run(rangeHeaders(file.size, RANGE_REQUESTS));
    return RANGE_REQUESTS / ((performance.now() - t0) / 1000);
  } finally {
    agent.destroy();
  }
}

/** Full and Range downloads of `url`, with the RSS of `pid` during each. */
export async function downloads(
  url: string,
  headers: Record<string, string>,
  file: TestFile,
  pid: number | undefined,
  etag?: string,
): Promise<DownloadResult> {
  const full = await withRss(pid, () => downloadFull(url, headers, file, etag));
  const range = await withRss(pid, () => downloadRanges(url, headers, file));
  return {
    fullMiBs: full.result,
    rangeReqs: range.result,
    rangeMiBs: (range.result * RANGE_SIZE) / MiB,
    full: full.rss,
    range: range.rss,
  };
}

/** The yardstick rows of `@fastify/static` (once per run). */
export function staticRows(d: DownloadResult): FileRow[] {
  return [
    {
      scenario: `@fastify/static: full GET, ${FILE_SIZE / MiB} MiB × ${FULL_DOWNLOADS}`,
      value: d.fullMiBs,
      unit: 'MiB/s',
      baseline: null,
      rss: { ...d.full, process: 'static' },
    },
    {
      scenario: `@fastify/static: ${RANGE_REQUESTS} × 1 MiB Range GET, ${RANGE_CONCURRENCY} conns`,
      value: d.rangeReqs,
      unit: 'req/s',
      baseline: null,
      rss: { ...d.range, process: 'static' },
    },
  ];
}

/**
 * The file scenarios against one running service: disk baseline in its DATA_DIR, simple upload,
 * chunked upload, full and Range downloads of the uploaded file. Goals (the targets): upload
 * ≥ 0.7× the disk, chunked ≥ 0.5×, downloads ≥ 0.9× @fastify/static (the Range one too: it is a download).
 */
export async function fileScenarios(
  service: { url: string; dataDir: string; pid: number | undefined },
  token: string,
  file: TestFile,
  yardstick: DownloadResult,
): Promise<FileRow[]> {
  const { url: base, pid } = service;
  const rows: FileRow[] = [];
  await prepareSettings(base, token);

  const disk = await diskWrite(file, service.dataDir);
  rows.push({
    scenario: `disk: stream ${FILE_SIZE / MiB} MiB into DATA_DIR + fsync`,
    value: disk,
    unit: 'MiB/s',
    baseline: null,
    rss: null,
  });

  const simple = await withRss(pid, () => uploadSimple(base, token, file));
  rows.push({
    scenario: 'upload: POST /api/files, one multipart request',
    value: simple.result.mibs,
    unit: 'MiB/s',
    baseline: disk,
    goal: 0.7,
    rss: { ...simple.rss, process: 'service' },
  });

  const chunked = await withRss(pid, () => uploadChunked(base, token, file));
  rows.push({
    scenario: `upload: chunked, ${chunked.result.chunks} × ${CHUNK_SIZE / MiB} MiB + complete`,
    value: chunked.result.mibs,
    unit: 'MiB/s',
    baseline: disk,
    goal: 0.5,
    rss: { ...chunked.rss, process: 'service' },
    note:
      `chunked upload: chunks ${chunked.result.chunksSeconds.toFixed(1)} s, ` +
      `complete (re-read, SHA-256, write + fsync) ${chunked.result.completeSeconds.toFixed(1)} s`,
  });

  const content = `${base}/api/files/${simple.result.file.id}/content`;
  const d = await downloads(content, { authorization: `Bearer ${token}` }, file, pid, `"${file.sha256}"`);
  rows.push({
    scenario: `download: GET /api/files/:id/content, ${FILE_SIZE / MiB} MiB × ${FULL_DOWNLOADS}`,
    value: d.fullMiBs,
    unit: 'MiB/s',
    baseline: yardstick.fullMiBs,
    goal: 0.9,
    rss: { ...d.full, process: 'service' },
  });
  rows.push({
    scenario: `download: ${RANGE_REQUESTS} × 1 MiB Range GET, ${RANGE_CONCURRENCY} conns`,
    value: d.rangeReqs,
    unit: 'req/s',
    baseline: yardstick.rangeReqs,
    goal: 0.9,
    rss: { ...d.range, process: 'service' },
  });
  rows.push(...(await driveFileRows(base, token, file, pid, { upload: simple.result.mibs, download: d })));
  return rows;
}

/**
 * The drive's rows (issue 14): the same file uploaded into the caller's personal space and
 * downloaded through the drive's ACL, each against the managed-file row of the same run (≥ 0.9×).
 */
async function driveFileRows(
  base: string,
  token: string,
  file: TestFile,
  pid: number | undefined,
  managed: { upload: number; download: DownloadResult },
): Promise<FileRow[]> {
  const spaces = await json<{ list: { id: number; type: string }[] }>(`${base}/api/drive/spaces`, 'GET', token);
  const personal = spaces.list.find((sp) => sp.type === 'personal');
  if (!personal) throw new Error('drive bench: no personal space');
  const up = await withRss(pid, () =>
    uploadSimple(base, token, file, { path: `/api/drive/nodes/upload?spaceId=${personal.id}`, fields: {} }),
  );
  const content = `${base}/api/drive/nodes/${up.result.file.id}/content?download=true`;
  const d = await downloads(content, { authorization: `Bearer ${token}` }, file, pid, `"${file.sha256}"`);
  const shares = await shareLinkRows(base, token, file, up.result.file.id, pid, d);
  return [
    {
      scenario: 'drive upload: POST /api/drive/nodes/upload, one multipart request',
      value: up.result.mibs,
      unit: 'MiB/s',
      baseline: managed.upload,
      goal: 0.9,
      rss: { ...up.rss, process: 'service' },
      note: 'drive rows: the yardstick is the managed-file row of the same run (upload: POST /api/files; downloads: GET /api/files/:id/content)',
    },
    {
      scenario: `drive download: GET /api/drive/nodes/:id/content, ${FILE_SIZE / MiB} MiB × ${FULL_DOWNLOADS}`,
      value: d.fullMiBs,
      unit: 'MiB/s',
      baseline: managed.download.fullMiBs,
      goal: 0.9,
      rss: { ...d.full, process: 'service' },
    },
    {
      scenario: `drive download: ${RANGE_REQUESTS} × 1 MiB Range GET, ${RANGE_CONCURRENCY} conns`,
      value: d.rangeReqs,
      unit: 'req/s',
      baseline: managed.download.rangeReqs,
      goal: 0.9,
      rss: { ...d.range, process: 'service' },
    },
    ...shares,
  ];
}
