/** Client-side copies of the server limits (spec §8), so oversized reports are cut rather than rejected. */
export const MAX_MESSAGE = 2000;
export const MAX_STACK = 16000;
export const MAX_URL = 512;
export const MAX_BREADCRUMBS = 30;
export const DEDUPE_WINDOW_MS = 10_000;

export function truncate(value: string, max: number): string {
  return value.length > max ? value.slice(0, max) : value;
}
