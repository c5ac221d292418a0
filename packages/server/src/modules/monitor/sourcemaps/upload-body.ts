import type { FastifyRequest } from 'fastify';
import { httpErrors } from '../../../platform/http/errors.ts';
import { assertText } from '../../../platform/http/request-checks.ts';
import { sourceMapErrors } from './errors.ts';
import { MAX_MAP_BYTES } from './limits.ts';
import { checkUploadFields } from './validate.ts';

/** Room for the multipart framing and the two text fields around a map at the limit. */
const FRAMING = 64 * 1024;

/**
 * Reads the multipart upload: fields `release`, `fileName` and the `file` part, in any order.
 * A body announced over the limit is refused before it is read; otherwise the file is read up
 * to one byte past the limit, so nothing larger is ever buffered.
 */
export async function readUpload(req: FastifyRequest) {
  if (!req.isMultipart()) throw httpErrors.unsupportedMediaType();
  const length = Number(req.headers['content-length'] ?? 0);
  if (length > MAX_MAP_BYTES + FRAMING) throw sourceMapErrors.tooLarge();

  const fields: { release?: string; fileName?: string } = {};
  let content: Buffer | null = null;
  for await (const part of req.parts({ limits: { fileSize: MAX_MAP_BYTES + 1, files: 1, fields: 10 } })) {
    if (part.type === 'file') {
      if (part.fieldname !== 'file') {
        part.file.resume();
        continue;
      }
      const chunks: Buffer[] = [];
      let size = 0;
      for await (const chunk of part.file as AsyncIterable<Buffer>) {
        size += chunk.length;
        if (size > MAX_MAP_BYTES) {
          part.file.destroy();
          throw sourceMapErrors.tooLarge();
        }
        chunks.push(chunk);
      }
      if (part.file.truncated) throw sourceMapErrors.tooLarge();
      content = Buffer.concat(chunks);
    } else if (part.fieldname === 'release' || part.fieldname === 'fileName') {
      const value = String(part.value);
      assertText(part.fieldname, value);
      fields[part.fieldname] = value;
    }
  }
  const { release, fileName } = checkUploadFields({ ...fields, file: content !== null && content.length > 0 });
  return { release, fileName, content: content as Buffer };
}
