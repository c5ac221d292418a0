import { AppError } from '../../../platform/http/errors.ts';
import { MAX_MAP_MB } from './limits.ts';

/** Errors of source-map management (`monitor.source_map_*`). */
export const sourceMapErrors = {
  notFound: () => new AppError(404, 'monitor.source_map_not_found', 'Source map not found'),
  tooLarge: () =>
    new AppError(413, 'monitor.source_map_too_large', `A source map may be at most ${MAX_MAP_MB} MB`, {
      details: [{ field: 'file', message: `larger than ${MAX_MAP_MB} MB` }],
    }),
  invalid: (message: string) =>
    new AppError(400, 'monitor.source_map_invalid', `The file is not a version 3 source map: ${message}`, {
      details: [{ field: 'file', message }],
    }),
};
