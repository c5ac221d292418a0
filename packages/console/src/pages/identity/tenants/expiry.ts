const DAY_MS = 86_400_000;
/** The server reminds a tenant's administrators 30 days before expiry: from then on it is "soon". */
const SOON_DAYS = 30;

export type Expiry =
  | { kind: 'never' }
  | { kind: 'expired' }
  | { kind: 'today' }
  | { kind: 'soon' | 'later'; days: number };

/** Where an expiry stands at `now`: whole days left, rounded down (a tenant expiring tonight has 0). */
export function expiry(iso: string | null, now = Date.now()): Expiry {
  if (!iso) return { kind: 'never' };
  const left = new Date(iso).getTime() - now;
  if (left <= 0) return { kind: 'expired' };
  const days = Math.floor(left / DAY_MS);
  if (days === 0) return { kind: 'today' };
  return { kind: days <= SOON_DAYS ? 'soon' : 'later', days };
}
