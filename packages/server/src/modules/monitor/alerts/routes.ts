import type { FastifyInstance } from 'fastify';
import { WebhookSecretRotate } from '../../../platform/egress/webhook-secrets.ts';
import { route } from '../../../platform/http/route.ts';
import { IdParams, Ok, PageOf } from '../../../platform/http/schemas.ts';
import {
  AlertLog,
  AlertLogQuery,
  AlertRule,
  AlertRuleCreate,
  AlertRuleEnabled,
  AlertRuleQuery,
  AlertRuleUpdate,
  AlertRuleWritten,
} from './schemas.ts';
import type { AlertService } from './service.ts';

const tags = ['FrontendErrors'];
const URL = '/api/frontend-errors/alerts';
const RULE_NOTE =
  'An enabled rule needs a channel; webhook needs an http(s) URL; email and inapp need recipients (users of the tenant). The answer that gives a rule its first webhook URL carries its signing secret (`webhookSecret`), shown once.';

/** `/api/frontend-errors/alerts` and `/alert-logs` (spec §4.6 rules 6–7). */
export function alertRoutes(app: FastifyInstance, alerts: AlertService) {
  const read = { auth: 'user', permission: 'monitor:alert:list' } as const;
  const write = { auth: 'user', permission: 'monitor:alert:manage' } as const;

  route(app, {
    method: 'GET',
    url: URL,
    operation: 'monitor.alert_rule.list',
    ...read,
    schema: { tags, summary: 'List alert rules', querystring: AlertRuleQuery, response: PageOf(AlertRule) },
    handler: async (req) => alerts.list(req.scope, req.query),
  });

  route(app, {
    method: 'GET',
    url: `${URL}/:id`,
    operation: 'monitor.alert_rule.get',
    ...read,
    schema: { tags, summary: 'Get an alert rule', params: IdParams, response: AlertRule },
    handler: async (req) => alerts.get(req.scope, req.params.id),
  });

  route(app, {
    method: 'POST',
    url: URL,
    operation: 'monitor.alert_rule.create',
    ...write,
    status: 201,
    schema: {
      tags,
      summary: 'Create an alert rule',
      description: RULE_NOTE,
      body: AlertRuleCreate,
      response: AlertRuleWritten,
    },
    handler: async (req) => alerts.create(req.scope, req.body),
  });

  route(app, {
    method: 'PUT',
    url: `${URL}/:id`,
    operation: 'monitor.alert_rule.update',
    ...write,
    schema: {
      tags,
      summary: 'Change an alert rule',
      description: RULE_NOTE,
      params: IdParams,
      body: AlertRuleUpdate,
      response: AlertRuleWritten,
    },
    handler: async (req) => alerts.update(req.scope, req.params.id, req.body),
  });

  route(app, {
    method: 'PUT',
    url: `${URL}/:id/enabled`,
    operation: 'monitor.alert_rule.set_enabled',
    ...write,
    schema: {
      tags,
      summary: 'Enable or disable an alert rule',
      description: RULE_NOTE,
      params: IdParams,
      body: AlertRuleEnabled,
      response: AlertRuleWritten,
    },
    handler: async (req) => alerts.setEnabled(req.scope, req.params.id, req.body.enabled),
  });

  route(app, {
    method: 'POST',
    url: `${URL}/:id/webhook-secret`,
    operation: 'monitor.alert_rule.rotate_webhook_secret',
    ...write,
    schema: {
      tags,
      summary: 'Rotate the webhook signing secret; answers the new one once',
      description:
        'During the grace period (graceSeconds, default 24 hours) every webhook carries two v1 signatures, one per secret, so receivers can switch without missing an alert. Send `{}` for the defaults.',
      params: IdParams,
      body: WebhookSecretRotate,
      response: AlertRuleWritten,
    },
    handler: async (req) => alerts.rotateWebhookSecret(req.scope, req.params.id, req.body.graceSeconds),
  });

  route(app, {
    method: 'DELETE',
    url: `${URL}/:id`,
    operation: 'monitor.alert_rule.delete',
    ...write,
    schema: { tags, summary: 'Delete an alert rule (its history stays)', params: IdParams, response: Ok },
    handler: async (req) => {
      await alerts.remove(req.scope, req.params.id);
    },
  });

  route(app, {
    method: 'POST',
    url: `${URL}/:id/test`,
    operation: 'monitor.alert_rule.test',
    ...write,
    schema: {
      tags,
      summary: 'Send a test notification with the rule’s current channels',
      description: 'Writes an alert log row with test=true; does not affect the debounce (lastTriggeredAt).',
      params: IdParams,
      response: AlertLog,
    },
    handler: async (req) => alerts.test(req.scope, req.params.id),
  });

  route(app, {
    method: 'GET',
    url: '/api/frontend-errors/alert-logs',
    operation: 'monitor.alert_log.list',
    ...read,
    schema: { tags, summary: 'Alert history, newest first', querystring: AlertLogQuery, response: PageOf(AlertLog) },
    handler: async (req) => alerts.logs(req.scope, req.query),
  });
}
