-- Issue 13 (one spelling per module): the open platform's system tasks and queue are spelled
-- like its folder, `open-platform.*` (docs/decisions/0006-jobs.md).
-- Cron jobs bound to the old task names follow them; a built-in job is named after its task.
WITH renamed(old_name, new_name) AS (
  VALUES
    ('openPlatform.deliverWebhooks', 'open-platform.deliverWebhooks'),
    ('openPlatform.purgeWebhookDeliveries', 'open-platform.purgeWebhookDeliveries'),
    ('openPlatform.purgeExpiredTokens', 'open-platform.purgeExpiredTokens')
)
UPDATE "cron_jobs" AS j
SET "name" = CASE
    WHEN j."builtin" AND j."name" = r.old_name AND NOT EXISTS (
      SELECT 1 FROM "cron_jobs" AS o WHERE o."tenant_id" IS NOT DISTINCT FROM j."tenant_id" AND o."name" = r.new_name
    ) THEN r.new_name
    ELSE j."name"
  END,
  "handler" = r.new_name
FROM renamed AS r
WHERE j."handler" = r.old_name;
--> statement-breakpoint
UPDATE "cron_job_runs"
SET "handler" = 'open-platform.' || substr("handler", length('openPlatform.') + 1)
WHERE "handler" IN ('openPlatform.deliverWebhooks', 'openPlatform.purgeWebhookDeliveries', 'openPlatform.purgeExpiredTokens');
--> statement-breakpoint
-- The webhook wake queue becomes `open-platform.webhooks.wake`. Its waiting jobs are only
-- wake-ups: the minute sweeper (open-platform.deliverWebhooks) sends their deliveries anyway, so
-- the old queue is dropped with them. pg-boss creates its schema at first start: nothing to drop
-- before that.
DO $$
BEGIN
  -- nested: a condition naming pgboss.queue is planned as a whole, so it must not run without it
  IF to_regclass('pgboss.queue') IS NOT NULL THEN
    IF EXISTS (SELECT 1 FROM pgboss.queue WHERE name = 'openPlatform.webhookDelivery') THEN
      PERFORM pgboss.delete_queue('openPlatform.webhookDelivery');
    END IF;
  END IF;
END $$;
