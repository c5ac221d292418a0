import { crc32 } from 'node:zlib';
import sharp from 'sharp';
import type { TestApp } from '../helpers/app.ts';

/** Preview test material: real images made with sharp, and GET helpers for the preview route. */
export const previewUrl = (token: string, nodeId?: number) =>
  `/api/drive/public/shares/${token}/preview${nodeId === undefined ? '' : `?nodeId=${nodeId}`}`;

export const getPreview = (t: TestApp, token: string, nodeId?: number, headers: Record<string, string> = {}) =>
  t.app.inject({ method: 'GET', url: previewUrl(token, nodeId), headers, remoteAddress: '203.0.113.7' });

/** A noisy RGB picture (so JPEG cannot shrink it to nothing), with EXIF (camera, GPS) and an orientation. */
export async function photoJpeg(width: number, height: number, orientation = 1): Promise<Buffer> {
  const raw = Buffer.alloc(width * height * 3);
  for (let i = 0; i < raw.length; i++) raw[i] = ((i * 2654435761) >>> 24) & 0xff;
  return sharp(raw, { raw: { width, height, channels: 3 } })
    .jpeg({ quality: 90 })
    .withExif({
      IFD0: { Make: 'PreviewCam', Model: 'GPS-Secret-Model', ImageDescription: 'home address' },
      IFD3: {
        GPSLatitudeRef: 'N',
        GPSLatitude: '48/1 51/1 2964/100',
        GPSLongitudeRef: 'E',
        GPSLongitude: '2/1 21/1 752/100',
      },
    })
    .withMetadata({ orientation })
    .toBuffer();
}

/** A flat grey JPEG: any watermark shows as pixels far from the grey. */
export const greyJpeg = (width: number, height: number) =>
  sharp({ create: { width, height, channels: 3, background: { r: 128, g: 128, b: 128 } } })
    .jpeg({ quality: 95 })
    .toBuffer();

/** A PNG whose left half is transparent. */
export async function alphaPng(width: number, height: number): Promise<Buffer> {
  const raw = Buffer.alloc(width * height * 4);
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++) raw.set([200, 30, 30, x < width / 2 ? 0 : 255], (y * width + x) * 4);
  return sharp(raw, { raw: { width, height, channels: 4 } })
    .png()
    .toBuffer();
}

/** A tiny PNG whose header claims `side`×`side` pixels (IHDR rewritten, its CRC too): a decompression bomb's header. */
export async function bombPng(side: number): Promise<Buffer> {
  const png = Buffer.from(
    await sharp({ create: { width: 1, height: 1, channels: 3, background: '#000' } })
      .png()
      .toBuffer(),
  );
  // signature (8) + length (4) + "IHDR" (4): width and height follow
  png.writeUInt32BE(side, 16);
  png.writeUInt32BE(side, 20);
  png.writeUInt32BE(crc32(png.subarray(12, 29)), 29);
  return png;
}

/** The decoded RGB pixels of an image. */
export const pixels = async (image: Buffer) => sharp(image).removeAlpha().raw().toBuffer({ resolveWithObject: true });
