import argon2 from 'argon2';

/** Password hashing of every module (sign-in, share-link passwords): one algorithm, one cost. */

/** argon2id with OWASP's minimum profile (19 MiB, t=2, p=1): strong and affordable per login. */
const OPTIONS = { type: argon2.argon2id, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

export function hashPassword(plain: string): Promise<string> {
  return argon2.hash(plain, OPTIONS);
}

export async function verifyPassword(hash: string, plain: string): Promise<boolean> {
  try {
    return await argon2.verify(hash, plain);
  } catch {
    return false;
  }
}

let dummy: Promise<string> | null = null;
/** Same cost as a real check, so an unknown username takes as long as a wrong password. */
export async function burnPasswordCheck(plain: string): Promise<void> {
  dummy ??= hashPassword('atrium-timing-equaliser');
  await verifyPassword(await dummy, plain);
}
