import type sanitizeHtml from 'sanitize-html';

/**
 * Rich text (notices, announcements) is HTML shown to every user of a tenant, so it is sanitized on save:
 * common formatting, links (http, https, mailto; rel=noopener) and images (http, https, or a
 * data: URI of a raster image). Scripts, event handlers, style, iframe and object never pass.
 */
const IMAGE_SRC = /^(https?:\/\/\S+|data:image\/(png|jpeg|gif|webp);base64,[A-Za-z0-9+/=\s]+)$/i;
const LINK_HREF = /^(https?:\/\/\S+|mailto:\S+)$/i;

/** Keeps `name` only when it matches `allowed` (absolute URLs only: no relative or protocol-relative ones). */
function keepIf(attribs: sanitizeHtml.Attributes, name: string, allowed: RegExp): sanitizeHtml.Attributes {
  const { [name]: value, ...rest } = attribs;
  return value !== undefined && allowed.test(value.trim()) ? { ...rest, [name]: value.trim() } : rest;
}

const options = (defaults: sanitizeHtml.IDefaults): sanitizeHtml.IOptions => ({
  allowedTags: [...defaults.allowedTags, 'img', 'del', 'ins'],
  allowedAttributes: {
    a: ['href', 'name', 'target', 'rel', 'title'],
    img: ['src', 'alt', 'title', 'width', 'height'],
    td: ['colspan', 'rowspan'],
    th: ['colspan', 'rowspan'],
    ol: ['start'],
  },
  allowedSchemes: ['http', 'https', 'mailto'],
  allowedSchemesByTag: { img: ['http', 'https', 'data'] },
  allowProtocolRelative: false,
  transformTags: {
    a: (tagName, attribs) => ({
      tagName,
      attribs: { ...keepIf(attribs, 'href', LINK_HREF), rel: 'noopener noreferrer' },
    }),
    img: (tagName, attribs) => ({ tagName, attribs: keepIf(attribs, 'src', IMAGE_SRC) }),
  },
  // An image left without a source is dropped rather than kept as an empty box.
  exclusiveFilter: (frame) => frame.tag === 'img' && !frame.attribs.src,
});

let sanitizer: Promise<(html: string) => string> | undefined;

/** sanitize-html and its parser (~60 modules) are loaded with the first rich text saved, not at start. */
export async function sanitizeRichHtml(html: string): Promise<string> {
  sanitizer ??= import('sanitize-html').then(({ default: sanitize }) => {
    const opts = options(sanitize.defaults);
    return (h: string) => sanitize(h, opts);
  });
  return (await sanitizer)(html).trim();
}
