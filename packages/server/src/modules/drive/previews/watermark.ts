import { ADVANCE, drawable, GLYPH_HEIGHT, inkRuns } from './bitmap-font.ts';

/** Diagonal: the text rises at 30°. */
const ANGLE = Math.PI / 6;
/** RGBA as one little-endian 32-bit word (the byte order of a Buffer's Uint32Array on every platform Node runs on). */
const rgba = (r: number, g: number, b: number, alpha: number) =>
  (r | (g << 8) | (b << 16) | (Math.round(alpha * 255) << 24)) >>> 0;
const LIGHT = rgba(255, 255, 255, 0.45);
const SHADOW = rgba(0, 0, 0, 0.3);

/** The ink of one tile of the pattern, in font cells: the text with a margin, 1 = ink. */
function tileMask(text: string) {
  // room around the text: a quarter of it in width, three lines in height (the picture stays readable)
  const width = Math.ceil(drawable(text).length * ADVANCE * 1.25);
  const height = GLYPH_HEIGHT * 4;
  const mask = new Uint8Array(width * height);
  for (const r of inkRuns(text)) mask.fill(1, r.y * width + r.x, r.y * width + r.x + r.length);
  return { mask, width, height };
}

/** Ink at (u, v), in font cells of the unrotated pattern; every other row is half a tile along (bricks). */
function inkAt(t: ReturnType<typeof tileMask>, u: number, v: number): boolean {
  const cy = Math.floor(v);
  const row = Math.floor(cy / t.height);
  const y = cy - row * t.height;
  let x = Math.floor(u + (row & 1 ? t.width / 2 : 0)) % t.width;
  if (x < 0) x += t.width;
  return t.mask[y * t.width + x] === 1;
}

/**
 * The watermark burned into image previews, as raw RGBA pixels the size of the picture: `text`
 * tiled over all of it, diagonal, semi-transparent, rows staggered. Drawn pixel by pixel from our
 * own bitmap font: no system font, no SVG renderer (librsvg draws `<text>` as nothing without
 * fonts, and its patterns cost several times more). A light copy over a dark one a little off
 * keeps it visible on light and dark pictures alike.
 */
export function watermarkPixels(width: number, height: number, text: string): Buffer {
  // a font cell grows with the picture: about 1/400 of its long side, at least 2 px
  const cell = Math.max(2, Math.round(Math.max(width, height) / 400));
  const shadow = 0.5;
  const tile = tileMask(text);
  // one pixel step, in cells of the rotated pattern
  const c = Math.cos(ANGLE) / cell;
  const s = Math.sin(ANGLE) / cell;
  const out = Buffer.alloc(width * height * 4);
  const px = new Uint32Array(out.buffer, out.byteOffset, width * height);
  for (let y = 0, i = 0; y < height; y++) {
    let u = -y * s;
    let v = y * c;
    for (let x = 0; x < width; x++, i++, u += c, v += s) {
      if (inkAt(tile, u, v)) px[i] = LIGHT;
      else if (inkAt(tile, u - shadow, v - shadow)) px[i] = SHADOW;
    }
  }
  return out;
}

/**
 * What a share link's preview says (traceability: which link, seen from which address, on which
 * day, so a leaked screenshot names its source). The day, not the time: the ETag stays stable
 * for a day and repeated views answer 304.
 */
export function shareWatermarkText(linkId: number, ip: string, now: Date): string {
  return `SHARE ${linkId} ${ip} ${now.toISOString().slice(0, 10)}`;
}
