import { databaseUnavailable } from '../db/unavailable.ts';
import { AppError } from '../http/errors.ts';

/**
 * The error says a dependency is down (the database, the cache, the file storage: what answers
 * 503 with Retry-After), not that the work itself is wrong: work in the background waits and
 * tries again rather than failing for good (issue 27, decision 0040).
 */
export function dependencyDown(err: unknown): err is Error {
  return databaseUnavailable(err) || (err instanceof AppError && err.status === 503);
}
