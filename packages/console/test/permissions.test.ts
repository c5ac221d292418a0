import { describe, expect, it } from 'vitest';
import { mayCall, mayCallRoute } from '../src/api/permissions.ts';

/** The generated permission map as the console asks it whether to show an action. */
describe('mayCall', () => {
  const none = new Set<string>();

  it('a guarded operation: only with its permission, or for a super administrator (*)', () => {
    expect(mayCall('identity.user.create', none)).toBe(false);
    expect(mayCall('identity.user.create', new Set(['system:user:create']))).toBe(true);
    expect(mayCall('identity.user.create', new Set(['*']))).toBe(true);
    expect(mayCallRoute('POST /api/users', new Set(['system:user:view']))).toBe(false);
  });

  it('a permission with a path parameter is filled from it', () => {
    expect(mayCall('system.setting.get', new Set(['security:setting:view']), { module: 'security' })).toBe(true);
    expect(mayCall('system.setting.get', new Set(['security:setting:view']), { module: 'storage' })).toBe(false);
  });

  it('a signed-in operation without a permission, and a public one, for anyone signed in', () => {
    expect(mayCall('identity.session.me', none)).toBe(true);
    expect(mayCall('docs.openapi.get', none)).toBe(true);
    // a sign-in is optional there (security: [{}, { BearerAuth: [] }])
    expect(mayCall('files.file.content', none)).toBe(true);
  });

  it('never an application’s operation: a console sign-in is refused there', () => {
    expect(mayCall('open_platform.open_api_caller.get', new Set(['*']))).toBe(false);
  });
});
