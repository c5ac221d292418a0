import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import type { LightMyRequestResponse } from 'fastify';
import { call, createTestApp, type TestApp, type TestAppOptions } from '../helpers/app.ts';

/** Helpers of the managed-files tests: an app whose storage lives in a temporary DATA_DIR. */
export type FilesTestApp = TestApp & { dataDir: string; storedFiles(): Promise<string[]> };

export async function createFilesTestApp(opts: TestAppOptions = {}): Promise<FilesTestApp> {
  const dataDir = await mkdtemp(join(tmpdir(), 'atrium-files-'));
  const t = await createTestApp({ ...opts, env: { DATA_DIR: dataDir, ...opts.env } });
  const root = join(dataDir, 'files');
  return {
    ...t,
    dataDir,
    /** every stored object of the local provider (files only, relative to its root) */
    async storedFiles() {
      const out: string[] = [];
      const walk = async (dir: string) => {
        let entries: import('node:fs').Dirent[];
        try {
          entries = await readdir(dir, { withFileTypes: true });
        } catch {
          return;
        }
        for (const e of entries) {
          const full = join(dir, e.name);
          if (e.isDirectory()) await walk(full);
          else out.push(relative(root, full));
        }
      };
      await walk(root);
      return out.sort();
    },
    async close() {
      await t.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** A tiny but real PNG (signature, IHDR, IEND): file-type sniffs it as image/png. */
export function pngBytes(salt = randomBytes(4)): Buffer {
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    Buffer.from([0, 0, 0, 13]),
    Buffer.from('IHDR'),
    Buffer.alloc(13, 1),
    Buffer.alloc(4),
    Buffer.from([0, 0, 0, 0]),
    Buffer.from('IEND'),
    Buffer.alloc(4),
    salt,
  ]);
}

export type Part =
  | { field: string; value: string }
  | { field: string; filename: string; contentType?: string; data: Buffer };

/** A multipart/form-data body (RFC 7578), parts in the given order. */
export function multipartBody(parts: Part[]): { payload: Buffer; headers: Record<string, string> } {
  const boundary = `----atrium${randomBytes(8).toString('hex')}`;
  const chunks: Buffer[] = [];
  for (const p of parts) {
    let head = `--${boundary}\r\nContent-Disposition: form-data; name="${p.field}"`;
    if ('filename' in p) {
      head += `; filename="${p.filename}"\r\nContent-Type: ${p.contentType ?? 'application/octet-stream'}\r\n\r\n`;
      chunks.push(Buffer.from(head, 'utf8'), p.data, Buffer.from('\r\n'));
    } else {
      chunks.push(Buffer.from(`${head}\r\n\r\n${p.value}\r\n`, 'utf8'));
    }
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { payload: Buffer.concat(chunks), headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}

/** POST /api/files with one file (and a visibility field before it when given). */
export async function uploadFile(
  t: TestApp,
  token: string | undefined,
  file: { name: string; data: Buffer; contentType?: string; visibility?: string },
): Promise<LightMyRequestResponse> {
  const parts: Part[] = [];
  if (file.visibility !== undefined) parts.push({ field: 'visibility', value: file.visibility });
  parts.push({ field: 'file', filename: file.name, contentType: file.contentType, data: file.data });
  const { payload, headers } = multipartBody(parts);
  return t.app.inject({
    method: 'POST',
    url: '/api/files',
    payload,
    headers: { ...headers, ...(token ? { authorization: `Bearer ${token}` } : {}) },
  });
}

/** PUT one raw chunk. */
export function putChunk(t: TestApp, token: string, sessionId: number, index: number, data: Buffer) {
  return t.app.inject({
    method: 'PUT',
    url: `/api/files/uploads/${sessionId}/chunks/${index}`,
    payload: data,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/octet-stream' },
  });
}

export { call };
