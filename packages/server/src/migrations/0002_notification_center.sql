CREATE TABLE "announcement_reads" (
	"announcement_id" integer NOT NULL,
	"user_id" integer NOT NULL,
	"read_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "announcement_reads_announcement_id_user_id_pk" PRIMARY KEY("announcement_id","user_id")
);
--> statement-breakpoint
CREATE TABLE "announcement_recipients" (
	"id" serial PRIMARY KEY NOT NULL,
	"announcement_id" integer NOT NULL,
	"target_type" text NOT NULL,
	"target_id" integer NOT NULL,
	CONSTRAINT "announcement_recipients_target" UNIQUE("announcement_id","target_type","target_id")
);
--> statement-breakpoint
CREATE TABLE "announcements" (
	"id" serial PRIMARY KEY NOT NULL,
	"tenant_id" integer,
	"title" text NOT NULL,
	"content" text NOT NULL,
	"type" text DEFAULT 'notice' NOT NULL,
	"priority" text DEFAULT 'normal' NOT NULL,
	"target_type" text DEFAULT 'all' NOT NULL,
	"publish_status" text DEFAULT 'draft' NOT NULL,
	"publish_time" timestamp with time zone,
	"expire_time" timestamp with time zone,
	"created_by" integer,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "notification_dispatches" (
	"id" serial PRIMARY KEY NOT NULL,
	"tenant_id" integer,
	"outbox_id" integer NOT NULL,
	"event_key" text NOT NULL,
	"channel" text NOT NULL,
	"recipient_type" text NOT NULL,
	"recipient_id" integer,
	"recipient_key" text NOT NULL,
	"contact" jsonb NOT NULL,
	"decision" text NOT NULL,
	"reason_code" text,
	"idempotency_key" text,
	"digest_key" text,
	"deliver_after" timestamp with time zone,
	"attempts" smallint DEFAULT 0 NOT NULL,
	"locked_until" timestamp with time zone,
	"error" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"delivered_at" timestamp with time zone,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "notification_event_overrides" (
	"id" serial PRIMARY KEY NOT NULL,
	"tenant_id" integer,
	"event_key" text NOT NULL,
	"channel" text NOT NULL,
	"enabled" boolean NOT NULL,
	"locked" boolean DEFAULT false NOT NULL,
	"updated_by" integer,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "notification_outbox" (
	"id" serial PRIMARY KEY NOT NULL,
	"tenant_id" integer,
	"event_key" text NOT NULL,
	"input" jsonb NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"attempts" smallint DEFAULT 0 NOT NULL,
	"locked_until" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"processed_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "notification_preferences" (
	"id" serial PRIMARY KEY NOT NULL,
	"tenant_id" integer,
	"recipient_key" text NOT NULL,
	"event_key" text NOT NULL,
	"channel" text NOT NULL,
	"enabled" boolean NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "notification_recipient_settings" (
	"id" serial PRIMARY KEY NOT NULL,
	"tenant_id" integer,
	"recipient_key" text NOT NULL,
	"global_muted" boolean DEFAULT false NOT NULL,
	"timezone" text DEFAULT 'Asia/Shanghai' NOT NULL,
	"quiet_start" text,
	"quiet_end" text,
	"digest_mode" text DEFAULT 'realtime' NOT NULL,
	"digest_hour" smallint DEFAULT 9 NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "email_configs" (
	"id" serial PRIMARY KEY NOT NULL,
	"tenant_id" integer,
	"host" text NOT NULL,
	"port" integer NOT NULL,
	"secure" boolean DEFAULT false NOT NULL,
	"username" text DEFAULT '' NOT NULL,
	"password_encrypted" text,
	"from_address" text NOT NULL,
	"from_name" text DEFAULT '' NOT NULL,
	"enabled" boolean DEFAULT true NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "email_send_logs" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"tenant_id" integer,
	"dispatch_id" integer,
	"event_key" text,
	"template_code" text,
	"config_id" integer,
	"to_address" text NOT NULL,
	"subject" text NOT NULL,
	"status" text NOT NULL,
	"error" text,
	"message_id" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "email_templates" (
	"id" serial PRIMARY KEY NOT NULL,
	"tenant_id" integer,
	"code" text NOT NULL,
	"name" text NOT NULL,
	"subject" text NOT NULL,
	"content" text NOT NULL,
	"variables" text[] DEFAULT '{}'::text[] NOT NULL,
	"status" text DEFAULT 'active' NOT NULL,
	"remark" text DEFAULT '' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "in_app_messages" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"tenant_id" integer,
	"user_id" integer NOT NULL,
	"template_id" integer,
	"title" text NOT NULL,
	"content" text NOT NULL,
	"type" text NOT NULL,
	"is_read" boolean DEFAULT false NOT NULL,
	"read_at" timestamp with time zone,
	"source" text NOT NULL,
	"event_key" text,
	"sender_id" integer,
	"link" text,
	"dedupe_key" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "in_app_templates" (
	"id" serial PRIMARY KEY NOT NULL,
	"tenant_id" integer,
	"code" text NOT NULL,
	"title" text NOT NULL,
	"content" text NOT NULL,
	"type" text DEFAULT 'notification' NOT NULL,
	"variables" text[] DEFAULT '{}'::text[] NOT NULL,
	"status" text DEFAULT 'active' NOT NULL,
	"remark" text DEFAULT '' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "push_configs" (
	"id" serial PRIMARY KEY NOT NULL,
	"tenant_id" integer,
	"endpoint" text NOT NULL,
	"app_key" text NOT NULL,
	"master_secret_encrypted" text,
	"apns_production" boolean DEFAULT false NOT NULL,
	"enabled" boolean DEFAULT true NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "push_devices" (
	"id" serial PRIMARY KEY NOT NULL,
	"tenant_id" integer,
	"user_id" integer NOT NULL,
	"platform" text NOT NULL,
	"registration_id" text NOT NULL,
	"device_name" text DEFAULT '' NOT NULL,
	"app_version" text DEFAULT '' NOT NULL,
	"status" text DEFAULT 'active' NOT NULL,
	"last_seen_at" timestamp with time zone DEFAULT now() NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "push_send_logs" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"tenant_id" integer,
	"dispatch_id" integer,
	"event_key" text NOT NULL,
	"user_id" integer NOT NULL,
	"registration_ids" text[] NOT NULL,
	"status" text NOT NULL,
	"provider_message_id" text,
	"error" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "sms_configs" (
	"id" serial PRIMARY KEY NOT NULL,
	"tenant_id" integer,
	"name" text NOT NULL,
	"provider" text NOT NULL,
	"access_key_id" text NOT NULL,
	"access_key_secret_encrypted" text,
	"sign_name" text NOT NULL,
	"sdk_app_id" text,
	"region" text NOT NULL,
	"endpoint" text NOT NULL,
	"is_default" boolean DEFAULT false NOT NULL,
	"status" text DEFAULT 'active' NOT NULL,
	"remark" text DEFAULT '' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "sms_send_logs" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"tenant_id" integer,
	"dispatch_id" integer,
	"event_key" text,
	"template_code" text,
	"config_id" integer,
	"provider" text,
	"phone" text NOT NULL,
	"status" text NOT NULL,
	"provider_message_id" text,
	"error" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "sms_templates" (
	"id" serial PRIMARY KEY NOT NULL,
	"tenant_id" integer,
	"code" text NOT NULL,
	"name" text NOT NULL,
	"config_id" integer,
	"provider_template_id" text NOT NULL,
	"content" text DEFAULT '' NOT NULL,
	"variables" text[] DEFAULT '{}'::text[] NOT NULL,
	"status" text DEFAULT 'active' NOT NULL,
	"remark" text DEFAULT '' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "announcement_reads" ADD CONSTRAINT "announcement_reads_announcement_id_announcements_id_fk" FOREIGN KEY ("announcement_id") REFERENCES "public"."announcements"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "announcement_recipients" ADD CONSTRAINT "announcement_recipients_announcement_id_announcements_id_fk" FOREIGN KEY ("announcement_id") REFERENCES "public"."announcements"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "in_app_messages" ADD CONSTRAINT "in_app_messages_template_id_in_app_templates_id_fk" FOREIGN KEY ("template_id") REFERENCES "public"."in_app_templates"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sms_templates" ADD CONSTRAINT "sms_templates_config_id_sms_configs_id_fk" FOREIGN KEY ("config_id") REFERENCES "public"."sms_configs"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "announcement_reads_user" ON "announcement_reads" USING btree ("user_id");--> statement-breakpoint
CREATE INDEX "announcement_recipients_by_target" ON "announcement_recipients" USING btree ("target_type","target_id");--> statement-breakpoint
CREATE INDEX "announcements_tenant_status" ON "announcements" USING btree ("tenant_id","publish_status","publish_time");--> statement-breakpoint
CREATE UNIQUE INDEX "notification_dispatches_pair" ON "notification_dispatches" USING btree ("outbox_id","recipient_key","channel");--> statement-breakpoint
CREATE INDEX "notification_dispatches_tenant_time" ON "notification_dispatches" USING btree ("tenant_id","created_at");--> statement-breakpoint
CREATE INDEX "notification_dispatches_open" ON "notification_dispatches" USING btree ("decision","deliver_after") WHERE "notification_dispatches"."decision" in ('pending', 'deferred');--> statement-breakpoint
CREATE INDEX "notification_dispatches_rate" ON "notification_dispatches" USING btree ("event_key","recipient_key","channel","created_at") WHERE "notification_dispatches"."decision" in ('pending', 'sent');--> statement-breakpoint
CREATE INDEX "notification_dispatches_idempotency" ON "notification_dispatches" USING btree ("event_key","idempotency_key") WHERE "notification_dispatches"."idempotency_key" is not null;--> statement-breakpoint
CREATE INDEX "notification_dispatches_digest" ON "notification_dispatches" USING btree ("digest_key") WHERE "notification_dispatches"."digest_key" is not null;--> statement-breakpoint
CREATE UNIQUE INDEX "notification_event_overrides_key" ON "notification_event_overrides" USING btree (coalesce("tenant_id", 0),"event_key","channel");--> statement-breakpoint
CREATE INDEX "notification_outbox_open" ON "notification_outbox" USING btree ("created_at") WHERE "notification_outbox"."status" <> 'done';--> statement-breakpoint
CREATE UNIQUE INDEX "notification_preferences_key" ON "notification_preferences" USING btree (coalesce("tenant_id", 0),"recipient_key","event_key","channel");--> statement-breakpoint
CREATE UNIQUE INDEX "notification_recipient_settings_key" ON "notification_recipient_settings" USING btree (coalesce("tenant_id", 0),"recipient_key");--> statement-breakpoint
CREATE UNIQUE INDEX "email_configs_tenant" ON "email_configs" USING btree (coalesce("tenant_id", 0));--> statement-breakpoint
CREATE INDEX "email_send_logs_tenant_time" ON "email_send_logs" USING btree ("tenant_id","created_at");--> statement-breakpoint
CREATE INDEX "email_send_logs_tenant_status_time" ON "email_send_logs" USING btree ("tenant_id","status","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "email_templates_tenant_code" ON "email_templates" USING btree (coalesce("tenant_id", 0),"code");--> statement-breakpoint
CREATE INDEX "in_app_messages_inbox" ON "in_app_messages" USING btree ("tenant_id","user_id","is_read","id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "in_app_messages_tenant_created" ON "in_app_messages" USING btree ("tenant_id","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "in_app_messages_dedupe" ON "in_app_messages" USING btree (coalesce("tenant_id", 0),"dedupe_key") WHERE "in_app_messages"."dedupe_key" is not null;--> statement-breakpoint
CREATE UNIQUE INDEX "in_app_templates_tenant_code" ON "in_app_templates" USING btree (coalesce("tenant_id", 0),"code");--> statement-breakpoint
CREATE UNIQUE INDEX "push_configs_tenant" ON "push_configs" USING btree (coalesce("tenant_id", 0));--> statement-breakpoint
CREATE UNIQUE INDEX "push_devices_tenant_registration" ON "push_devices" USING btree (coalesce("tenant_id", 0),"registration_id");--> statement-breakpoint
CREATE INDEX "push_devices_user" ON "push_devices" USING btree ("tenant_id","user_id");--> statement-breakpoint
CREATE INDEX "push_send_logs_tenant_created" ON "push_send_logs" USING btree ("tenant_id","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "sms_configs_tenant_name" ON "sms_configs" USING btree (coalesce("tenant_id", 0),"name");--> statement-breakpoint
CREATE UNIQUE INDEX "sms_configs_one_default" ON "sms_configs" USING btree (coalesce("tenant_id", 0)) WHERE "sms_configs"."is_default";--> statement-breakpoint
CREATE INDEX "sms_send_logs_tenant_created" ON "sms_send_logs" USING btree ("tenant_id","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "sms_templates_tenant_code" ON "sms_templates" USING btree (coalesce("tenant_id", 0),"code");