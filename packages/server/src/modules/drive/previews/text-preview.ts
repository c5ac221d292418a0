/** Bytes of a text file a preview shows at most: the first MiB. */
export const TEXT_PREVIEW_BYTES = 1024 * 1024;

/** C0 controls but tab, line feed and carriage return; DEL; C1 controls. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: removing control characters is the point
const CONTROL = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F]/g;

/**
 * A text preview: the bytes decoded (UTF-8, or UTF-16 when its BOM says so; the BOM dropped;
 * invalid sequences become U+FFFD) with control characters removed. `truncated`: `bytes` are the
 * start of a longer file, so a character cut at the end is dropped rather than shown as U+FFFD.
 */
export function renderText(bytes: Buffer, truncated: boolean): Buffer {
  let encoding = 'utf-8';
  let start = 0;
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) start = 3;
  else if (bytes[0] === 0xff && bytes[1] === 0xfe) [encoding, start] = ['utf-16le', 2];
  else if (bytes[0] === 0xfe && bytes[1] === 0xff) [encoding, start] = ['utf-16be', 2];
  // `stream: true` keeps an incomplete last character back instead of replacing it
  const text = new TextDecoder(encoding).decode(bytes.subarray(start), { stream: truncated });
  return Buffer.from(text.replace(CONTROL, ''), 'utf8');
}
