import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { route } from '../../../platform/http/route.ts';
import { SettingsByModule, SettingsModuleParams, SettingsModuleView, SettingsValues } from '../schemas.ts';
import type { SettingsService } from '../settings-service.ts';

const tags = ['Settings'];

export function settingsRoutes(app: FastifyInstance, settings: SettingsService) {
  route(app, {
    method: 'GET',
    url: '/api/settings/me',
    operation: 'system.setting.mine',
    auth: 'user',
    schema: {
      tags,
      summary: 'Values of every settings module that signed-in users may read',
      response: SettingsByModule,
    },
    handler: async (req) => settings.mine(req.scope),
  });

  route(app, {
    method: 'GET',
    url: '/api/settings/public',
    operation: 'system.setting.public',
    auth: 'public',
    schema: {
      tags,
      summary: 'Public setting values (for the sign-in page: captchaEnabled, passwordMinLength)',
      querystring: Type.Object({
        tenantCode: Type.Optional(
          Type.String({
            minLength: 1,
            maxLength: 64,
            description: 'values of this tenant; platform values when absent or unknown',
          }),
        ),
      }),
      response: SettingsByModule,
    },
    handler: async (req) => settings.publicValues(req.query.tenantCode),
  });

  route(app, {
    method: 'GET',
    url: '/api/settings/:module',
    operation: 'system.setting.get',
    auth: 'user',
    permission: '{module}:setting:view',
    schema: {
      tags,
      summary: "A settings module: its fields and the effective values at the caller's level",
      params: SettingsModuleParams,
      response: SettingsModuleView,
    },
    handler: async (req) => settings.view(req.scope, req.params.module),
  });

  route(app, {
    method: 'PUT',
    url: '/api/settings/:module',
    operation: 'system.setting.update',
    auth: 'user',
    permission: '{module}:setting:edit',
    schema: {
      tags,
      summary: "Change some values at the caller's level (platform values, or the tenant's overrides)",
      description:
        'A partial object of field → value; one bad field rejects the whole change. Answers the new effective values.',
      params: SettingsModuleParams,
      body: SettingsValues,
      response: SettingsValues,
    },
    handler: async (req) => settings.update(req.scope, req.params.module, req.body),
  });
}
