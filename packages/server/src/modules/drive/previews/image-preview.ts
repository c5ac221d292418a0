import type { OutputInfo } from 'sharp';
import { driveErrors } from '../errors.ts';
import { watermarkPixels } from './watermark.ts';

/** Bounds of an image preview (the decision in docs/decisions: previews). */
export const IMAGE_LIMITS = {
  /** bytes of the stored image read at most */
  inputBytes: 64 * 1024 * 1024,
  /** decoded pixels at most (a decompression bomb stops here, before any pixel is allocated) */
  inputPixels: 64_000_000,
  /** long side of the preview */
  side: 2048,
  /** one encode at most this long */
  seconds: 20,
};

/** What sharp may decode for a preview: raster formats only (SVG is text here, PDF is part 3's). */
const RASTER_FORMATS = new Set(['jpeg', 'png', 'webp', 'gif', 'heif', 'tiff']);

/**
 * True when the bytes start like one of those formats. Checked before sharp sees them: sharp
 * picks its loader from the content, and an SVG, a PDF or anything else named .png must not
 * reach another loader (librsvg parsing a stranger's XML) on its way to a refusal.
 */
export function rasterSignature(b: Buffer): boolean {
  const ascii = (from: number, to: number) => b.subarray(from, to).toString('latin1');
  return (
    (b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) || // JPEG
    ascii(0, 8) === '\x89PNG\r\n\x1a\n' ||
    ascii(0, 4) === 'GIF8' ||
    (ascii(0, 4) === 'RIFF' && ascii(8, 12) === 'WEBP') ||
    ascii(0, 4) === 'II*\0' ||
    ascii(0, 4) === 'MM\0*' ||
    ascii(4, 8) === 'ftyp' // AVIF / HEIF (ISO base media)
  );
}

export type ImagePreview = { body: Buffer; mime: 'image/jpeg' | 'image/png' };

let sharpModule: Promise<typeof import('sharp')> | null = null;
/** libvips is loaded on the first preview, not at start: an instance that never previews keeps its memory. */
async function loadSharp() {
  sharpModule ??= import('sharp');
  return (await sharpModule).default;
}

/** True when every alpha value of interleaved raw pixels is 255 (then the alpha is dropped). */
function opaque(data: Buffer, channels: number): boolean {
  for (let i = channels - 1; i < data.length; i += channels) if (data[i] !== 255) return false;
  return true;
}

/**
 * Decodes `bytes` and encodes a new picture: first page or frame only, EXIF orientation applied,
 * sRGB, at most IMAGE_LIMITS.side on the long side, every piece of metadata left behind (EXIF,
 * GPS, ICC, comments: the pixels travel through a raw buffer), the watermark burned in when
 * given. JPEG (quality 82) when opaque, PNG when any pixel is transparent. A file that is not a
 * readable raster image is 422 drive.preview_unreadable, one too large 422 drive.preview_too_large.
 */
export async function renderImage(bytes: Buffer, watermark: string | null): Promise<ImagePreview> {
  const sharp = await loadSharp();
  const options = { limitInputPixels: IMAGE_LIMITS.inputPixels, pages: 1 } as const;
  if (!rasterSignature(bytes)) throw driveErrors.previewUnreadable();
  let format: string | undefined;
  let pixels = 0;
  try {
    // the header only: the format and the size are known before a pixel is decoded
    const meta = await sharp(bytes, { ...options, limitInputPixels: false }).metadata();
    format = meta.format;
    pixels = (meta.width ?? 0) * (meta.pageHeight ?? meta.height ?? 0);
  } catch {
    throw driveErrors.previewUnreadable();
  }
  if (!format || !RASTER_FORMATS.has(format)) throw driveErrors.previewUnreadable();
  if (pixels > IMAGE_LIMITS.inputPixels) throw driveErrors.previewTooLarge(`${IMAGE_LIMITS.inputPixels} pixels`);

  let decoded: { data: Buffer; info: OutputInfo };
  try {
    decoded = await sharp(bytes, options)
      .timeout({ seconds: IMAGE_LIMITS.seconds })
      .rotate()
      .resize({ width: IMAGE_LIMITS.side, height: IMAGE_LIMITS.side, fit: 'inside', withoutEnlargement: true })
      .toColourspace('srgb')
      .raw()
      .toBuffer({ resolveWithObject: true });
  } catch (err) {
    if (/pixel limit|timeout/i.test(String(err)))
      throw driveErrors.previewTooLarge(`${IMAGE_LIMITS.inputPixels} pixels`);
    throw driveErrors.previewUnreadable();
  }
  const { data, info } = decoded;
  const alpha = info.channels === 4 && !opaque(data, 4);
  let out = sharp(data, { raw: { width: info.width, height: info.height, channels: info.channels } });
  if (watermark) {
    const overlay = watermarkPixels(info.width, info.height, watermark);
    out = out.composite([{ input: overlay, raw: { width: info.width, height: info.height, channels: 4 } }]);
  }
  if (alpha) return { body: await out.png({ compressionLevel: 6 }).toBuffer(), mime: 'image/png' };
  return { body: await out.removeAlpha().jpeg({ quality: 82 }).toBuffer(), mime: 'image/jpeg' };
}
