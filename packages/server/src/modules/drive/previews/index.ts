/**
 * Previews of drive files (issue 15 item 2; part 3 adds signed-in previews, thumbnails and the
 * rendition pipeline that fills drive_node_renditions): the service, the kinds a client can
 * show, and the watermark texts.
 */

export { type PreviewKind, previewKind } from './preview-kinds.ts';
export { createPreviewService, type Preview, type PreviewService, renditionOwner } from './previews-service.ts';
export { shareWatermarkText } from './watermark.ts';
