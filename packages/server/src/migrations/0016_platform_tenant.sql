-- Hand-edited (docs/decisions/0042-platform-tenant.md): the platform tenant, row 0 of tenants, owns
-- every platform-level row; tenant_id NULL is rewritten to 0 before the columns become NOT NULL.
INSERT INTO "tenants" ("id", "code", "name", "status", "remark") VALUES (0, '_platform', 'Platform', 'active', 'The platform tenant: owns platform-level rows. Not shown or usable through the API.') ON CONFLICT ("id") DO NOTHING;--> statement-breakpoint
UPDATE "drive_access_requests" SET "tenant_id" = 0 WHERE "tenant_id" IS NULL;--> statement-breakpoint
UPDATE "drive_activities" SET "tenant_id" = 0 WHERE "tenant_id" IS NULL;--> statement-breakpoint
UPDATE "drive_collect_submissions" SET "tenant_id" = 0 WHERE "tenant_id" IS NULL;--> statement-breakpoint
UPDATE "drive_file_versions" SET "tenant_id" = 0 WHERE "tenant_id" IS NULL;--> statement-breakpoint
UPDATE "drive_legal_holds" SET "tenant_id" = 0 WHERE "tenant_id" IS NULL;--> statement-breakpoint
UPDATE "drive_node_permissions" SET "tenant_id" = 0 WHERE "tenant_id" IS NULL;--> statement-breakpoint
UPDATE "drive_node_renditions" SET "tenant_id" = 0 WHERE "tenant_id" IS NULL;--> statement-breakpoint
UPDATE "drive_node_stars" SET "tenant_id" = 0 WHERE "tenant_id" IS NULL;--> statement-breakpoint
UPDATE "drive_nodes" SET "tenant_id" = 0 WHERE "tenant_id" IS NULL;--> statement-breakpoint
UPDATE "drive_recent_access" SET "tenant_id" = 0 WHERE "tenant_id" IS NULL;--> statement-breakpoint
UPDATE "drive_share_access_logs" SET "tenant_id" = 0 WHERE "tenant_id" IS NULL;--> statement-breakpoint
UPDATE "drive_share_links" SET "tenant_id" = 0 WHERE "tenant_id" IS NULL;--> statement-breakpoint
UPDATE "drive_space_members" SET "tenant_id" = 0 WHERE "tenant_id" IS NULL;--> statement-breakpoint
UPDATE "drive_spaces" SET "tenant_id" = 0 WHERE "tenant_id" IS NULL;--> statement-breakpoint
UPDATE "drive_upload_bindings" SET "tenant_id" = 0 WHERE "tenant_id" IS NULL;--> statement-breakpoint
UPDATE "storage_configs" SET "tenant_id" = 0 WHERE "tenant_id" IS NULL;--> statement-breakpoint
UPDATE "file_upload_sessions" SET "tenant_id" = 0 WHERE "tenant_id" IS NULL;--> statement-breakpoint
UPDATE "managed_files" SET "tenant_id" = 0 WHERE "tenant_id" IS NULL;--> statement-breakpoint
UPDATE "departments" SET "tenant_id" = 0 WHERE "tenant_id" IS NULL;--> statement-breakpoint
UPDATE "login_logs" SET "tenant_id" = 0 WHERE "tenant_id" IS NULL;--> statement-breakpoint
UPDATE "positions" SET "tenant_id" = 0 WHERE "tenant_id" IS NULL;--> statement-breakpoint
UPDATE "roles" SET "tenant_id" = 0 WHERE "tenant_id" IS NULL;--> statement-breakpoint
UPDATE "user_groups" SET "tenant_id" = 0 WHERE "tenant_id" IS NULL;--> statement-breakpoint
UPDATE "user_sessions" SET "tenant_id" = 0 WHERE "tenant_id" IS NULL;--> statement-breakpoint
UPDATE "users" SET "tenant_id" = 0 WHERE "tenant_id" IS NULL;--> statement-breakpoint
UPDATE "members" SET "tenant_id" = 0 WHERE "tenant_id" IS NULL;--> statement-breakpoint
UPDATE "announcements" SET "tenant_id" = 0 WHERE "tenant_id" IS NULL;--> statement-breakpoint
UPDATE "notification_dispatches" SET "tenant_id" = 0 WHERE "tenant_id" IS NULL;--> statement-breakpoint
UPDATE "notification_event_overrides" SET "tenant_id" = 0 WHERE "tenant_id" IS NULL;--> statement-breakpoint
UPDATE "notification_outbox" SET "tenant_id" = 0 WHERE "tenant_id" IS NULL;--> statement-breakpoint
UPDATE "notification_preferences" SET "tenant_id" = 0 WHERE "tenant_id" IS NULL;--> statement-breakpoint
UPDATE "notification_recipient_settings" SET "tenant_id" = 0 WHERE "tenant_id" IS NULL;--> statement-breakpoint
UPDATE "email_configs" SET "tenant_id" = 0 WHERE "tenant_id" IS NULL;--> statement-breakpoint
UPDATE "email_send_logs" SET "tenant_id" = 0 WHERE "tenant_id" IS NULL;--> statement-breakpoint
UPDATE "email_templates" SET "tenant_id" = 0 WHERE "tenant_id" IS NULL;--> statement-breakpoint
UPDATE "in_app_messages" SET "tenant_id" = 0 WHERE "tenant_id" IS NULL;--> statement-breakpoint
UPDATE "in_app_templates" SET "tenant_id" = 0 WHERE "tenant_id" IS NULL;--> statement-breakpoint
UPDATE "push_configs" SET "tenant_id" = 0 WHERE "tenant_id" IS NULL;--> statement-breakpoint
UPDATE "push_devices" SET "tenant_id" = 0 WHERE "tenant_id" IS NULL;--> statement-breakpoint
UPDATE "push_send_logs" SET "tenant_id" = 0 WHERE "tenant_id" IS NULL;--> statement-breakpoint
UPDATE "sms_configs" SET "tenant_id" = 0 WHERE "tenant_id" IS NULL;--> statement-breakpoint
UPDATE "sms_send_logs" SET "tenant_id" = 0 WHERE "tenant_id" IS NULL;--> statement-breakpoint
UPDATE "sms_templates" SET "tenant_id" = 0 WHERE "tenant_id" IS NULL;--> statement-breakpoint
UPDATE "error_alert_logs" SET "tenant_id" = 0 WHERE "tenant_id" IS NULL;--> statement-breakpoint
UPDATE "error_alert_rules" SET "tenant_id" = 0 WHERE "tenant_id" IS NULL;--> statement-breakpoint
UPDATE "error_source_maps" SET "tenant_id" = 0 WHERE "tenant_id" IS NULL;--> statement-breakpoint
UPDATE "error_events" SET "tenant_id" = 0 WHERE "tenant_id" IS NULL;--> statement-breakpoint
UPDATE "error_group_identities" SET "tenant_id" = 0 WHERE "tenant_id" IS NULL;--> statement-breakpoint
UPDATE "error_groups" SET "tenant_id" = 0 WHERE "tenant_id" IS NULL;--> statement-breakpoint
UPDATE "error_sites" SET "tenant_id" = 0 WHERE "tenant_id" IS NULL;--> statement-breakpoint
UPDATE "open_apps" SET "tenant_id" = 0 WHERE "tenant_id" IS NULL;--> statement-breakpoint
UPDATE "oauth_codes" SET "tenant_id" = 0 WHERE "tenant_id" IS NULL;--> statement-breakpoint
UPDATE "oauth_consents" SET "tenant_id" = 0 WHERE "tenant_id" IS NULL;--> statement-breakpoint
UPDATE "oauth_tokens" SET "tenant_id" = 0 WHERE "tenant_id" IS NULL;--> statement-breakpoint
UPDATE "open_webhook_attempts" SET "tenant_id" = 0 WHERE "tenant_id" IS NULL;--> statement-breakpoint
UPDATE "open_webhook_deliveries" SET "tenant_id" = 0 WHERE "tenant_id" IS NULL;--> statement-breakpoint
UPDATE "open_webhook_subscriptions" SET "tenant_id" = 0 WHERE "tenant_id" IS NULL;--> statement-breakpoint
UPDATE "payment_channel_configs" SET "tenant_id" = 0 WHERE "tenant_id" IS NULL;--> statement-breakpoint
UPDATE "payment_notify_logs" SET "tenant_id" = 0 WHERE "tenant_id" IS NULL;--> statement-breakpoint
UPDATE "cron_jobs" SET "tenant_id" = 0 WHERE "tenant_id" IS NULL;--> statement-breakpoint
UPDATE "dict_items" SET "tenant_id" = 0 WHERE "tenant_id" IS NULL;--> statement-breakpoint
UPDATE "dict_types" SET "tenant_id" = 0 WHERE "tenant_id" IS NULL;--> statement-breakpoint
UPDATE "notices" SET "tenant_id" = 0 WHERE "tenant_id" IS NULL;--> statement-breakpoint
UPDATE "operation_logs" SET "tenant_id" = 0 WHERE "tenant_id" IS NULL;--> statement-breakpoint
UPDATE "system_configs" SET "tenant_id" = 0 WHERE "tenant_id" IS NULL;--> statement-breakpoint
UPDATE "async_tasks" SET "tenant_id" = 0 WHERE "tenant_id" IS NULL;--> statement-breakpoint
UPDATE "realtime_events" SET "tenant_id" = 0 WHERE "tenant_id" IS NULL;--> statement-breakpoint
UPDATE "settings_values" SET "tenant_id" = 0 WHERE "tenant_id" IS NULL;--> statement-breakpoint
ALTER TABLE "positions" DROP CONSTRAINT "positions_tenant_code";--> statement-breakpoint
ALTER TABLE "roles" DROP CONSTRAINT "roles_tenant_code";--> statement-breakpoint
ALTER TABLE "user_groups" DROP CONSTRAINT "user_groups_tenant_name";--> statement-breakpoint
ALTER TABLE "users" DROP CONSTRAINT "users_tenant_username";--> statement-breakpoint
ALTER TABLE "cron_jobs" DROP CONSTRAINT "cron_jobs_tenant_name";--> statement-breakpoint
ALTER TABLE "dict_types" DROP CONSTRAINT "dict_types_tenant_code";--> statement-breakpoint
ALTER TABLE "system_configs" DROP CONSTRAINT "system_configs_tenant_key";--> statement-breakpoint
ALTER TABLE "settings_values" DROP CONSTRAINT "settings_values_module_tenant";--> statement-breakpoint
DROP INDEX "drive_spaces_personal";--> statement-breakpoint
DROP INDEX "drive_spaces_department";--> statement-breakpoint
DROP INDEX "storage_configs_tenant_name";--> statement-breakpoint
DROP INDEX "storage_configs_one_default";--> statement-breakpoint
DROP INDEX "notification_event_overrides_key";--> statement-breakpoint
DROP INDEX "notification_preferences_key";--> statement-breakpoint
DROP INDEX "notification_recipient_settings_key";--> statement-breakpoint
DROP INDEX "email_configs_tenant";--> statement-breakpoint
DROP INDEX "email_templates_tenant_code";--> statement-breakpoint
DROP INDEX "in_app_messages_dedupe";--> statement-breakpoint
DROP INDEX "in_app_templates_tenant_code";--> statement-breakpoint
DROP INDEX "push_configs_tenant";--> statement-breakpoint
DROP INDEX "push_devices_tenant_registration";--> statement-breakpoint
DROP INDEX "sms_configs_tenant_name";--> statement-breakpoint
DROP INDEX "sms_configs_one_default";--> statement-breakpoint
DROP INDEX "sms_templates_tenant_code";--> statement-breakpoint
DROP INDEX "error_source_maps_release_file";--> statement-breakpoint
DROP INDEX "error_groups_fingerprint";--> statement-breakpoint
DROP INDEX "error_sites_tenant_name";--> statement-breakpoint
DROP INDEX "error_sites_platform";--> statement-breakpoint
DROP INDEX "open_apps_tenant_name";--> statement-breakpoint
DROP INDEX "open_webhook_subscriptions_app_url";--> statement-breakpoint
DROP INDEX "payment_channel_configs_tenant_name";--> statement-breakpoint
DROP INDEX "payment_channel_configs_one_default";--> statement-breakpoint
ALTER TABLE "drive_access_requests" ALTER COLUMN "tenant_id" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "drive_activities" ALTER COLUMN "tenant_id" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "drive_collect_submissions" ALTER COLUMN "tenant_id" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "drive_file_versions" ALTER COLUMN "tenant_id" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "drive_legal_holds" ALTER COLUMN "tenant_id" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "drive_node_permissions" ALTER COLUMN "tenant_id" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "drive_node_renditions" ALTER COLUMN "tenant_id" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "drive_node_stars" ALTER COLUMN "tenant_id" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "drive_nodes" ALTER COLUMN "tenant_id" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "drive_recent_access" ALTER COLUMN "tenant_id" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "drive_share_access_logs" ALTER COLUMN "tenant_id" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "drive_share_links" ALTER COLUMN "tenant_id" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "drive_space_members" ALTER COLUMN "tenant_id" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "drive_spaces" ALTER COLUMN "tenant_id" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "drive_upload_bindings" ALTER COLUMN "tenant_id" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "storage_configs" ALTER COLUMN "tenant_id" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "file_upload_sessions" ALTER COLUMN "tenant_id" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "managed_files" ALTER COLUMN "tenant_id" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "departments" ALTER COLUMN "tenant_id" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "login_logs" ALTER COLUMN "tenant_id" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "positions" ALTER COLUMN "tenant_id" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "roles" ALTER COLUMN "tenant_id" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "user_groups" ALTER COLUMN "tenant_id" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "user_sessions" ALTER COLUMN "tenant_id" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "users" ALTER COLUMN "tenant_id" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "members" ALTER COLUMN "tenant_id" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "announcements" ALTER COLUMN "tenant_id" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "notification_dispatches" ALTER COLUMN "tenant_id" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "notification_event_overrides" ALTER COLUMN "tenant_id" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "notification_outbox" ALTER COLUMN "tenant_id" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "notification_preferences" ALTER COLUMN "tenant_id" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "notification_recipient_settings" ALTER COLUMN "tenant_id" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "email_configs" ALTER COLUMN "tenant_id" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "email_send_logs" ALTER COLUMN "tenant_id" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "email_templates" ALTER COLUMN "tenant_id" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "in_app_messages" ALTER COLUMN "tenant_id" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "in_app_templates" ALTER COLUMN "tenant_id" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "push_configs" ALTER COLUMN "tenant_id" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "push_devices" ALTER COLUMN "tenant_id" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "push_send_logs" ALTER COLUMN "tenant_id" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "sms_configs" ALTER COLUMN "tenant_id" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "sms_send_logs" ALTER COLUMN "tenant_id" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "sms_templates" ALTER COLUMN "tenant_id" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "error_alert_logs" ALTER COLUMN "tenant_id" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "error_alert_rules" ALTER COLUMN "tenant_id" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "error_source_maps" ALTER COLUMN "tenant_id" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "error_events" ALTER COLUMN "tenant_id" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "error_group_identities" ALTER COLUMN "tenant_id" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "error_groups" ALTER COLUMN "tenant_id" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "error_sites" ALTER COLUMN "tenant_id" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "open_apps" ALTER COLUMN "tenant_id" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "oauth_codes" ALTER COLUMN "tenant_id" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "oauth_consents" ALTER COLUMN "tenant_id" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "oauth_tokens" ALTER COLUMN "tenant_id" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "open_webhook_attempts" ALTER COLUMN "tenant_id" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "open_webhook_deliveries" ALTER COLUMN "tenant_id" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "open_webhook_subscriptions" ALTER COLUMN "tenant_id" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "payment_channel_configs" ALTER COLUMN "tenant_id" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "payment_notify_logs" ALTER COLUMN "tenant_id" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "cron_jobs" ALTER COLUMN "tenant_id" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "dict_items" ALTER COLUMN "tenant_id" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "dict_types" ALTER COLUMN "tenant_id" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "notices" ALTER COLUMN "tenant_id" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "operation_logs" ALTER COLUMN "tenant_id" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "system_configs" ALTER COLUMN "tenant_id" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "async_tasks" ALTER COLUMN "tenant_id" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "realtime_events" ALTER COLUMN "tenant_id" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "settings_values" ALTER COLUMN "tenant_id" SET NOT NULL;--> statement-breakpoint
CREATE UNIQUE INDEX "drive_spaces_personal" ON "drive_spaces" USING btree ("tenant_id","owner_user_id") WHERE "drive_spaces"."type" = 'personal';--> statement-breakpoint
CREATE UNIQUE INDEX "drive_spaces_department" ON "drive_spaces" USING btree ("tenant_id","department_id") WHERE "drive_spaces"."type" = 'department';--> statement-breakpoint
CREATE UNIQUE INDEX "storage_configs_tenant_name" ON "storage_configs" USING btree ("tenant_id","name");--> statement-breakpoint
CREATE UNIQUE INDEX "storage_configs_one_default" ON "storage_configs" USING btree ("tenant_id") WHERE "storage_configs"."is_default";--> statement-breakpoint
CREATE UNIQUE INDEX "notification_event_overrides_key" ON "notification_event_overrides" USING btree ("tenant_id","event_key","channel");--> statement-breakpoint
CREATE UNIQUE INDEX "notification_preferences_key" ON "notification_preferences" USING btree ("tenant_id","recipient_key","event_key","channel");--> statement-breakpoint
CREATE UNIQUE INDEX "notification_recipient_settings_key" ON "notification_recipient_settings" USING btree ("tenant_id","recipient_key");--> statement-breakpoint
CREATE UNIQUE INDEX "email_configs_tenant" ON "email_configs" USING btree ("tenant_id");--> statement-breakpoint
CREATE UNIQUE INDEX "email_templates_tenant_code" ON "email_templates" USING btree ("tenant_id","code");--> statement-breakpoint
CREATE UNIQUE INDEX "in_app_messages_dedupe" ON "in_app_messages" USING btree ("tenant_id","dedupe_key") WHERE "in_app_messages"."dedupe_key" is not null;--> statement-breakpoint
CREATE UNIQUE INDEX "in_app_templates_tenant_code" ON "in_app_templates" USING btree ("tenant_id","code");--> statement-breakpoint
CREATE UNIQUE INDEX "push_configs_tenant" ON "push_configs" USING btree ("tenant_id");--> statement-breakpoint
CREATE UNIQUE INDEX "push_devices_tenant_registration" ON "push_devices" USING btree ("tenant_id","registration_id");--> statement-breakpoint
CREATE UNIQUE INDEX "sms_configs_tenant_name" ON "sms_configs" USING btree ("tenant_id","name");--> statement-breakpoint
CREATE UNIQUE INDEX "sms_configs_one_default" ON "sms_configs" USING btree ("tenant_id") WHERE "sms_configs"."is_default";--> statement-breakpoint
CREATE UNIQUE INDEX "sms_templates_tenant_code" ON "sms_templates" USING btree ("tenant_id","code");--> statement-breakpoint
CREATE UNIQUE INDEX "error_source_maps_release_file" ON "error_source_maps" USING btree ("tenant_id","release","file_name");--> statement-breakpoint
CREATE UNIQUE INDEX "error_groups_fingerprint" ON "error_groups" USING btree ("tenant_id","fingerprint");--> statement-breakpoint
CREATE UNIQUE INDEX "error_sites_tenant_name" ON "error_sites" USING btree ("tenant_id","name");--> statement-breakpoint
CREATE UNIQUE INDEX "error_sites_platform" ON "error_sites" USING btree ("tenant_id") WHERE "error_sites"."tenant_id" = 0;--> statement-breakpoint
CREATE UNIQUE INDEX "open_apps_tenant_name" ON "open_apps" USING btree ("tenant_id","name");--> statement-breakpoint
CREATE UNIQUE INDEX "open_webhook_subscriptions_app_url" ON "open_webhook_subscriptions" USING btree ("tenant_id",coalesce("app_id", 0),"url");--> statement-breakpoint
CREATE UNIQUE INDEX "payment_channel_configs_tenant_name" ON "payment_channel_configs" USING btree ("tenant_id","name");--> statement-breakpoint
CREATE UNIQUE INDEX "payment_channel_configs_one_default" ON "payment_channel_configs" USING btree ("tenant_id") WHERE "payment_channel_configs"."is_default";--> statement-breakpoint
ALTER TABLE "positions" ADD CONSTRAINT "positions_tenant_code" UNIQUE("tenant_id","code");--> statement-breakpoint
ALTER TABLE "roles" ADD CONSTRAINT "roles_tenant_code" UNIQUE("tenant_id","code");--> statement-breakpoint
ALTER TABLE "user_groups" ADD CONSTRAINT "user_groups_tenant_name" UNIQUE("tenant_id","name");--> statement-breakpoint
ALTER TABLE "users" ADD CONSTRAINT "users_tenant_username" UNIQUE("tenant_id","username");--> statement-breakpoint
ALTER TABLE "cron_jobs" ADD CONSTRAINT "cron_jobs_tenant_name" UNIQUE("tenant_id","name");--> statement-breakpoint
ALTER TABLE "dict_types" ADD CONSTRAINT "dict_types_tenant_code" UNIQUE("tenant_id","code");--> statement-breakpoint
ALTER TABLE "system_configs" ADD CONSTRAINT "system_configs_tenant_key" UNIQUE("tenant_id","key");--> statement-breakpoint
ALTER TABLE "settings_values" ADD CONSTRAINT "settings_values_module_tenant" UNIQUE("module","tenant_id");