import type { Readable } from 'node:stream';
import type { Scope } from '../../../platform/auth/principal.ts';
import { sha256 } from '../../../platform/crypto/digest.ts';
import type { FileWithObject } from '../../files/index.ts';
import type { DriveCore } from '../core.ts';
import { driveErrors } from '../errors.ts';
import type { NodeRow } from '../nodes/node-repository.ts';
import { versionOwner } from '../versions/version-store.ts';
import { createEncodeSlots } from './encode-slots.ts';
import { IMAGE_LIMITS, renderImage } from './image-preview.ts';
import { type PreviewKind, previewKind } from './preview-kinds.ts';
import {
  type RenditionKind,
  type RenditionRow,
  readyRenditionKinds,
  readyRenditions,
} from './renditions-repository.ts';
import { renderText, TEXT_PREVIEW_BYTES } from './text-preview.ts';

/** The owner a rendition's managed file is referenced by (part 3's pipeline adds the reference). */
export const renditionOwner = (renditionId: number) => ({ type: 'drive_rendition', id: renditionId });

/** Bumped when the output of the pipeline changes, so the ETags of older previews stop matching. */
const PIPELINE = 'p1';

/** Which rendition stands in for a file without a preview of its own, first found first. */
const RENDITION_ORDER: Array<{ kind: RenditionKind; as: Exclude<PreviewKind, 'none'> }> = [
  { kind: 'thumbnail', as: 'image' },
  { kind: 'text', as: 'text' },
];

/** Re-encodes at a time per instance, and how many more may wait. */
const ENCODES_RUNNING = 2;
const ENCODES_WAITING = 16;

/** Where a preview comes from: the current version's own bytes, or a ready rendition of it. */
export type PreviewPlan = {
  kind: Exclude<PreviewKind, 'none'>;
  node: NodeRow;
  source: { type: 'version'; versionId: number } | { type: 'rendition'; rendition: RenditionRow };
};

export type Preview = {
  body: Buffer;
  mime: string;
  kind: Exclude<PreviewKind, 'none'>;
  /** the text is the start of a longer file */
  truncated: boolean;
  etag: string;
};

/** Collects a stream into one buffer (the caller bounded the stream's length already). */
async function collect(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/**
 * Previews of drive files, for any caller that already decided the caller may see the node (the
 * public share routes now; signed-in previews and thumbnails in part 3). The original bytes never
 * leave here: images are decoded and re-encoded, text is decoded and sanitized, any other type is
 * served only through a ready rendition of its current version (drive_node_renditions, filled by
 * part 3's pipeline), else 415 drive.preview_unavailable with the node's metadata.
 */
export function createPreviewService(core: DriveCore) {
  const { db } = core;
  const slots = createEncodeSlots(ENCODES_RUNNING, ENCODES_WAITING);

  /** Where the preview of `node` comes from, decided without reading its bytes (so a 304 costs no read). */
  async function plan(scope: Scope, node: NodeRow): Promise<PreviewPlan> {
    if (node.type !== 'file') throw driveErrors.notAFile();
    if (node.currentVersionId === null) throw driveErrors.versionNotFound();
    const own = previewKind(node);
    if (own !== 'none') return { kind: own, node, source: { type: 'version', versionId: node.currentVersionId } };
    const renditions = await readyRenditions(db, scope, node.id, node.currentVersionId);
    for (const { kind, as } of RENDITION_ORDER) {
      const rendition = renditions.find((r) => r.kind === kind);
      if (rendition) return { kind: as, node, source: { type: 'rendition', rendition } };
    }
    const { id, name, mime, size, updatedAt } = node;
    throw driveErrors.previewUnavailable({ id, name, mime, size, updatedAt });
  }

  /** The entity tag of a preview: its source and the watermark (not the bytes: known before encoding). */
  function etag(p: PreviewPlan, watermark: string | null): string {
    const source = p.source.type === 'version' ? `v${p.source.versionId}` : `r${p.source.rendition.id}`;
    return `"${PIPELINE}-${sha256(JSON.stringify([source, p.kind, watermark])).slice(0, 32)}"`;
  }

  async function sourceFile(scope: Scope, p: PreviewPlan): Promise<FileWithObject> {
    if (p.source.type === 'version') return core.files.files.referencedBy(scope, versionOwner(p.source.versionId));
    const r = p.source.rendition;
    return core.files.files.ownedBy(scope, r.fileId as number, renditionOwner(r.id));
  }

  /** The first `limit` bytes of a file (the whole of a shorter one). */
  async function readHead(file: FileWithObject, limit: number): Promise<Buffer> {
    if (file.size === 0) return Buffer.alloc(0);
    return collect(await core.files.files.open(file, { start: 0, end: Math.min(file.size, limit) - 1 }));
  }

  /** Reads the source and makes the preview (images through the bounded encode slots). */
  async function render(scope: Scope, p: PreviewPlan, opts: { watermark: string | null }): Promise<Preview> {
    const file = await sourceFile(scope, p);
    const tag = etag(p, opts.watermark);
    if (p.kind === 'text') {
      const truncated = file.size > TEXT_PREVIEW_BYTES;
      const body = renderText(await readHead(file, TEXT_PREVIEW_BYTES), truncated);
      return { body, mime: 'text/plain; charset=utf-8', kind: 'text', truncated, etag: tag };
    }
    if (file.size > IMAGE_LIMITS.inputBytes)
      throw driveErrors.previewTooLarge(`${IMAGE_LIMITS.inputBytes / 1024 / 1024} MiB`);
    // read inside the slot: waiting requests hold no image bytes
    const image = await slots.run(async () => renderImage(await readHead(file, file.size), opts.watermark));
    return { ...image, kind: 'image', truncated: false, etag: tag };
  }

  return {
    plan,
    etag,
    render,

    /** The preview of a file the caller may see; `watermark`: the text burned into an image, or none. */
    async preview(scope: Scope, node: NodeRow, opts: { watermark: string | null }): Promise<Preview> {
      return render(scope, await plan(scope, node), opts);
    },

    /**
     * What each node of a listing can show, in one query: its own kind, or the kind of a ready
     * rendition of its current version for a type without one.
     */
    async kindsOf(
      scope: Scope,
      nodes: Array<Pick<NodeRow, 'id' | 'type' | 'name' | 'mime' | 'currentVersionId'>>,
    ): Promise<Map<number, PreviewKind>> {
      const kinds = new Map(nodes.map((n) => [n.id, previewKind(n)]));
      const waiting = nodes.flatMap((n) =>
        kinds.get(n.id) === 'none' && n.type === 'file' && n.currentVersionId !== null
          ? [{ id: n.id, currentVersionId: n.currentVersionId }]
          : [],
      );
      const ready = await readyRenditionKinds(db, scope, waiting);
      for (const { kind, as } of [...RENDITION_ORDER].reverse()) {
        for (const r of ready) if (r.kind === kind) kinds.set(r.nodeId, as);
      }
      return kinds;
    },
  };
}

export type PreviewService = ReturnType<typeof createPreviewService>;
