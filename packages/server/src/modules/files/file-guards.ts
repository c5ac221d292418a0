/**
 * Content guards shared by general uploads and the drive (spec §4.3 rule 5): what the bytes
 * really are (so a declared type cannot lie), executable headers, blocked extensions and the
 * MIME allow-list. Each takes the first bytes of the upload (4100 are enough for `file-type`).
 */
export const SNIFF_BYTES = 4100;

export type SniffedType = { mime: string; ext: string };

/** The type the content shows (magic numbers), or null when it has no recognisable signature (plain text, CSV…). */
export async function sniffType(firstBytes: Buffer): Promise<SniffedType | null> {
  if (firstBytes.length === 0) return null;
  // loaded with the first upload (file-type and its tokenizers: ~30 modules), not at start
  const { fileTypeFromBuffer } = await import('file-type');
  const found = await fileTypeFromBuffer(firstBytes);
  return found ? { mime: found.mime, ext: found.ext } : null;
}

export type ExecutableKind = 'pe' | 'elf' | 'mach-o' | 'mach-o-fat' | 'script' | 'java-class';

const u32 = (b: Buffer) => (b.length >= 4 ? b.readUInt32BE(0) : -1);

/**
 * Which kind of executable the header announces, or null. Covers Windows PE/MZ, ELF, every
 * Mach-O magic (32/64 bit, both byte orders, fat/universal 32 and 64, both orders), `#!`
 * scripts and Java classes. `CAFEBABE` is both a Java class and a fat Mach-O; either way it runs.
 */
export function executableKind(firstBytes: Buffer): ExecutableKind | null {
  const b = firstBytes;
  if (b.length >= 2 && b[0] === 0x4d && b[1] === 0x5a) return 'pe'; // "MZ"
  if (b.length >= 2 && b[0] === 0x23 && b[1] === 0x21) return 'script'; // "#!"
  switch (u32(b)) {
    case 0x7f454c46: // "\x7fELF"
      return 'elf';
    case 0xfeedface: // Mach-O 32, big endian
    case 0xcefaedfe: // Mach-O 32, little endian
    case 0xfeedfacf: // Mach-O 64, big endian
    case 0xcffaedfe: // Mach-O 64, little endian
      return 'mach-o';
    case 0xcafebabe: {
      // Fat Mach-O stores a small architecture count here; a Java class stores its version (≥ 45).
      const next = b.length >= 8 ? b.readUInt32BE(4) : 0;
      return next > 0 && next < 45 ? 'mach-o-fat' : 'java-class';
    }
    case 0xbebafeca: // fat, little endian
    case 0xcafebabf: // fat 64, big endian
    case 0xbfbafeca: // fat 64, little endian
      return 'mach-o-fat';
    default:
      return null;
  }
}

export function isExecutable(firstBytes: Buffer): boolean {
  return executableKind(firstBytes) !== null;
}

/** The extension chain of a file name, lower case: `Report.PDF.exe` → ['pdf', 'exe']. */
function extensions(name: string): string[] {
  let base = name.split(/[/\\]/).pop() ?? '';
  // Windows ignores an NTFS data-stream suffix and trailing dots and spaces: `x.exe::$DATA`, `x.exe. ` run as x.exe.
  base = base.replace(/::\$data$/i, '').replace(/[.\s]+$/u, '');
  const parts = base.toLowerCase().split('.');
  return parts.slice(1).filter((p) => p.length > 0);
}

/** An extension as lists hold it: `.PDF ` → `pdf`. */
export const normalizeExtension = (e: string) => e.trim().toLowerCase().replace(/^\.+/, '');

/**
 * True when the name ends in a blocked extension. Case-insensitive; list entries may carry a
 * leading dot. The last extension is checked (`invoice.pdf.exe` is an .exe), and so is the
 * last double extension (`.tar.gz`-style entries such as `pdf.exe` or `tar.gz`).
 */
export const hasBlockedExtension = (name: string, blocked: string[]): boolean => endsWithExtension(name, blocked);

/** True when the name ends in one of the listed extensions, by the rule of `hasBlockedExtension` (allow-lists use it too). */
export function endsWithExtension(name: string, list: string[]): boolean {
  const exts = extensions(name);
  if (exts.length === 0 || list.length === 0) return false;
  const set = new Set(list.map(normalizeExtension).filter((e) => e.length > 0));
  const last = exts[exts.length - 1] as string;
  if (set.has(last)) return true;
  return exts.length >= 2 && set.has(`${exts[exts.length - 2]}.${last}`);
}

/** True when `mime` (parameters ignored, any case) matches an entry: exact, `type/*`, or `*` / `*\/*`. */
export function mimeAllowed(mime: string, allowList: string[]): boolean {
  const m = (mime.split(';')[0] ?? '').trim().toLowerCase();
  const slash = m.indexOf('/');
  if (slash < 1 || slash === m.length - 1) return false;
  const type = m.slice(0, slash);
  for (const raw of allowList) {
    const entry = raw.trim().toLowerCase();
    if (entry === m || entry === '*' || entry === '*/*') return true;
    if (entry.endsWith('/*') && entry.slice(0, -2) === type) return true;
  }
  return false;
}
