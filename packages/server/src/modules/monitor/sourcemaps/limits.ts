/** Spec §8 "source map size: 20 MB" (and §7.2: rejected by client and server). */
export const MAX_MAP_MB = 20;
export const MAX_MAP_BYTES = MAX_MAP_MB * 1024 * 1024;
