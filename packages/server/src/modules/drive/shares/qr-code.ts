import QRCode from 'qrcode';
import type { Scope } from '../../../platform/auth/principal.ts';
import type { DriveCore } from '../core.ts';
import { driveErrors } from '../errors.ts';
import type { SharesService } from './shares-service.ts';

export type QrRequest = { format?: 'svg' | 'png'; target?: 'full' | 'short'; size?: number };
export type QrImage = { body: string | Buffer; mediaType: 'image/svg+xml' | 'image/png' };

/** PNG side in pixels when none is asked for (the schema bounds it to 64–1024). */
export const QR_DEFAULT_SIZE = 256;

/**
 * GET /share-links/{id}/qr: a QR code of the link's full or short URL, for whoever may read the
 * token (its creator, the node's managers). It carries the credential, so the route forbids caching.
 */
export function createQrCodes(
  core: Pick<DriveCore, 'access'>,
  shares: Pick<SharesService, 'manageable' | 'withToken'>,
) {
  return {
    async image(scope: Scope, id: number, q: QrRequest): Promise<QrImage> {
      const c = await core.access.caller(scope);
      const { link, node } = await shares.manageable(c, id);
      // a revoked link opens nothing: a code for it would only mislead
      if (link.status === 'revoked') throw driveErrors.shareLinkRevoked();
      const urls = await shares.withToken(scope, link, node.name);
      const url = q.target === 'short' ? urls.shortUrl : urls.url;
      if (url === null) throw driveErrors.shortLinkMissing();
      // M: 15 % of the code may be damaged (a printed or photographed code) and still read
      const options = { errorCorrectionLevel: 'M' as const, margin: 2 };
      if (q.format === 'png') {
        const body = await QRCode.toBuffer(url, { ...options, type: 'png', width: q.size ?? QR_DEFAULT_SIZE });
        return { body, mediaType: 'image/png' };
      }
      return { body: await QRCode.toString(url, { ...options, type: 'svg' }), mediaType: 'image/svg+xml' };
    },
  };
}

export type QrCodes = ReturnType<typeof createQrCodes>;
