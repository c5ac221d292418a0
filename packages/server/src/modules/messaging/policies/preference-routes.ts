import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { type Scope, userOf } from '../../../platform/auth/principal.ts';
import { httpErrors } from '../../../platform/http/errors.ts';
import { route } from '../../../platform/http/route.ts';
import type { PreferenceOwner, PreferencesService } from './preferences-service.ts';
import { MatrixBody, MatrixRow, RecipientSettingsBody, RecipientSettingsView } from './schemas.ts';

const tags = ['Notifications'];

/** The signed-in user's own preferences (recipient key `u:<id>` in the user's tenant). */
function ownerOf(scope: Scope): PreferenceOwner {
  const user = userOf(scope);
  if (!user) throw httpErrors.unauthenticated();
  return { tenantId: user.tenantId, recipientKey: `u:${user.userId}` };
}

export function preferenceRoutes(app: FastifyInstance, preferences: PreferencesService) {
  route(app, {
    method: 'GET',
    url: '/api/notification-preferences/matrix',
    operation: 'messaging.preference.matrix',
    auth: 'user',
    schema: { tags, summary: 'My preference matrix: events × channels', response: Type.Array(MatrixRow) },
    handler: async (req) => preferences.matrix(ownerOf(req.scope)),
  });

  route(app, {
    method: 'PUT',
    url: '/api/notification-preferences/matrix',
    operation: 'messaging.preference.save',
    auth: 'user',
    schema: {
      tags,
      summary: 'Save switches of my matrix (a switch equal to the default is not stored)',
      body: MatrixBody,
      response: Type.Array(MatrixRow),
    },
    handler: async (req) => preferences.save(ownerOf(req.scope), req.body.items),
  });

  route(app, {
    method: 'GET',
    url: '/api/notification-preferences/settings',
    operation: 'messaging.preference.settings',
    auth: 'user',
    schema: {
      tags,
      summary: 'My recipient settings: global mute, time zone, quiet hours, digest',
      response: RecipientSettingsView,
    },
    handler: async (req) => preferences.settings(ownerOf(req.scope)),
  });

  route(app, {
    method: 'PUT',
    url: '/api/notification-preferences/settings',
    operation: 'messaging.preference.save_settings',
    auth: 'user',
    schema: {
      tags,
      summary: 'Change my recipient settings (fields not sent are kept)',
      body: RecipientSettingsBody,
      response: RecipientSettingsView,
    },
    handler: async (req) => preferences.saveSettings(ownerOf(req.scope), req.body),
  });
}
