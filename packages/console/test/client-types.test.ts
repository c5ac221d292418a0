import { expect, it } from 'vitest';
import { api } from '../src/api/client.ts';

/**
 * What the type check holds calls to: this file is type-checked with the console
 * (`npm run typecheck -w @atrium/console`), and each `@ts-expect-error` fails it once the
 * generated types stop refusing what it marks.
 */
async function calls() {
  const me = await api.GET('/api/auth/me');
  const permissions: string[] | undefined = me.data?.data.permissions;
  // @ts-expect-error a path the document does not have
  await api.GET('/api/no-such-path');
  // @ts-expect-error a body the operation does not take
  await api.POST('/api/users', { body: { nickname: 1 } });
  await api.GET('/api/users/{id}', { params: { path: { id: 1 } } });
  // @ts-expect-error a path parameter of the wrong type
  await api.GET('/api/users/{id}', { params: { path: { id: 'one' } } });
  return permissions;
}

it('the client is the generated paths’ (the calls above are checked by tsc, not run)', () => {
  expect(typeof calls).toBe('function');
  expect(typeof api.GET).toBe('function');
});
