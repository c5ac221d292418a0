import type { NodeRow } from '../nodes/node-repository.ts';

/** What a client can show of a file: a re-encoded image, sanitized text, or nothing (metadata). */
export type PreviewKind = 'image' | 'text' | 'none';

/** Raster types re-encoded with sharp (its prebuilt libvips decodes these; BMP and HEIC it does not). */
const IMAGE_MIMES = new Set(['image/jpeg', 'image/png', 'image/webp', 'image/gif', 'image/avif', 'image/tiff']);
const IMAGE_EXTENSIONS = new Set(['jpg', 'jpeg', 'jpe', 'jfif', 'png', 'webp', 'gif', 'avif', 'tif', 'tiff']);

/** Types shown as plain text besides text/*; HTML and SVG among them (never rendered). */
const TEXT_MIMES = new Set([
  'application/json',
  'application/ld+json',
  'application/xml',
  'application/xhtml+xml',
  'image/svg+xml',
  'application/javascript',
  'application/x-javascript',
  'application/ecmascript',
  'application/yaml',
  'application/x-yaml',
  'application/toml',
  'application/sql',
  'application/x-sh',
  'application/x-httpd-php',
  'application/graphql',
]);
const TEXT_EXTENSIONS = new Set(
  (
    'txt text log md markdown rst adoc csv tsv json jsonl ndjson xml yaml yml toml ini cfg conf properties env ' +
    'html htm xhtml svg css scss sass less js mjs cjs jsx ts tsx vue svelte py rb php java kt kts scala groovy ' +
    'gradle go rs c h cc cpp cxx hpp hh cs fs swift m mm sh bash zsh fish ps1 bat cmd sql r lua pl pm dart ex ' +
    'exs erl hs clj elm tf hcl proto graphql gql tex diff patch srt vtt ics vcf'
  ).split(' '),
);

/** What the upload could not tell apart: no signature in the bytes and a generic declared type. */
const GENERIC_MIMES = new Set(['application/octet-stream', 'text/plain']);

const extension = (name: string) => {
  const dot = name.lastIndexOf('.');
  return dot > 0 ? name.slice(dot + 1).toLowerCase() : '';
};

/**
 * The preview a file gets from its own bytes. The stored type comes from the bytes' signature
 * when they have one (an upload cannot lie about it), so it decides; the extension decides only
 * when the type is generic (plain text, octet-stream). Part 3's renditions may turn a 'none' into
 * an image or a text (see previews-service.ts).
 */
export function previewKind(node: Pick<NodeRow, 'type' | 'name' | 'mime'>): PreviewKind {
  if (node.type !== 'file') return 'none';
  const mime = (node.mime ?? 'application/octet-stream').split(';')[0]?.trim().toLowerCase() ?? '';
  if (IMAGE_MIMES.has(mime)) return 'image';
  if (GENERIC_MIMES.has(mime)) {
    const ext = extension(node.name);
    if (IMAGE_EXTENSIONS.has(ext)) return 'image';
    if (TEXT_EXTENSIONS.has(ext) || mime === 'text/plain') return 'text';
    return 'none';
  }
  return mime.startsWith('text/') || TEXT_MIMES.has(mime) ? 'text' : 'none';
}
