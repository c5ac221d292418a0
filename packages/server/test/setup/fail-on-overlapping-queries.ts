import { afterAll, afterEach } from 'vitest';
import { installOverlappingQueriesGuard, takeOverlappingQueries } from './overlapping-queries.ts';

/** Every test file: two queries at once on one pg client fail the test that sent them. */
installOverlappingQueriesGuard();

function failOnOverlaps(): void {
  const found = takeOverlappingQueries();
  if (found.length === 0) return;
  throw new Error(
    `${found.length} pg quer${found.length === 1 ? 'y was' : 'ies were'} sent on a client still executing ` +
      'another (a transaction or a pool.connect() client takes one query at a time; await them in turn):\n\n' +
      found.join('\n\n'),
  );
}

afterEach(failOnOverlaps);
// a query sent by a hook or by background work after the last test
afterAll(failOnOverlaps);
