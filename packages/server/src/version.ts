/** Product release (spec §9.3); also the OpenAPI info.version. */
export const VERSION = '0.1.3';
