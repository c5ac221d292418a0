import { AppError } from '../../../platform/http/errors.ts';

/** Errors of open-platform webhooks (`open_platform.webhook_*`). */
export const webhookErrors = {
  subscriptionNotFound: () => new AppError(404, 'open_platform.webhook_not_found', 'Webhook subscription not found'),
  deliveryNotFound: () => new AppError(404, 'open_platform.webhook_delivery_not_found', 'Webhook delivery not found'),
  urlExists: () =>
    new AppError(409, 'open_platform.webhook_exists', 'This application already has a subscription to this URL', {
      details: [{ field: 'url', message: 'already subscribed for this application' }],
    }),
  appDisabled: () =>
    new AppError(409, 'open_platform.webhook_app_disabled', 'The application is disabled; nothing is sent to it'),
};
