import type { FastifyInstance } from 'fastify';
import { route } from '../../../../platform/http/route.ts';
import type { EmailConfigService } from '../config-service.ts';
import { EmailConfig, EmailConfigSave, EmailConfigView, EmailSendResult, EmailTestBody } from '../schemas.ts';

const tags = ['Email'];

/** `/api/email-config`: the SMTP configuration of the caller's scope (spec §4.4). */
export function emailConfigRoutes(app: FastifyInstance, configs: EmailConfigService) {
  route(app, {
    method: 'GET',
    url: '/api/email-config',
    operation: 'messaging.email_config.get',
    auth: 'user',
    permission: 'system:email-config:view',
    schema: {
      tags,
      summary: 'The SMTP configuration of this scope (null when none), and whether the platform’s applies instead',
      response: EmailConfigView,
    },
    handler: async (req) => configs.get(req.scope),
  });

  route(app, {
    method: 'PUT',
    url: '/api/email-config',
    operation: 'messaging.email_config.save',
    auth: 'user',
    permission: 'system:email-config:update',
    schema: {
      tags,
      summary: 'Save the SMTP configuration of this scope (an omitted password is kept; it is never answered)',
      body: EmailConfigSave,
      response: EmailConfig,
    },
    handler: async (req) => configs.save(req.scope, req.body),
  });

  route(app, {
    method: 'POST',
    url: '/api/email-config/test',
    operation: 'messaging.email_config.test',
    auth: 'user',
    permission: 'system:email-config:update',
    errors: [404], // no SMTP configuration saved yet
    schema: {
      tags,
      summary: 'Send a test mail with the saved configuration of this scope (writes a send log)',
      description: 'Answers the SMTP outcome: `sent`, or `failed` with the server’s error. 404 when nothing is saved.',
      body: EmailTestBody,
      response: EmailSendResult,
    },
    handler: async (req) => configs.test(req.scope, req.body.to),
  });
}
