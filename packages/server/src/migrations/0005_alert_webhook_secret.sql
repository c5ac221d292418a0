ALTER TABLE "error_alert_rules" ADD COLUMN "webhook_secret_encrypted" text;--> statement-breakpoint
ALTER TABLE "error_alert_rules" ADD COLUMN "webhook_secret_hint" text;--> statement-breakpoint
ALTER TABLE "error_alert_rules" ADD COLUMN "webhook_previous_secret_encrypted" text;--> statement-breakpoint
ALTER TABLE "error_alert_rules" ADD COLUMN "webhook_previous_secret_expires_at" timestamp with time zone;