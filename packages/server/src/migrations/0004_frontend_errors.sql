CREATE TABLE "error_alert_logs" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"tenant_id" integer,
	"rule_id" integer NOT NULL,
	"rule_snapshot" jsonb NOT NULL,
	"hits" jsonb NOT NULL,
	"channels" jsonb NOT NULL,
	"test" boolean DEFAULT false NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "error_alert_rules" (
	"id" serial PRIMARY KEY NOT NULL,
	"tenant_id" integer,
	"name" text NOT NULL,
	"enabled" boolean DEFAULT false NOT NULL,
	"condition" text NOT NULL,
	"error_type" text,
	"level" text,
	"threshold" integer DEFAULT 1 NOT NULL,
	"window_minutes" integer DEFAULT 60 NOT NULL,
	"channels" text[] DEFAULT '{}'::text[] NOT NULL,
	"recipients" integer[] DEFAULT '{}'::integer[] NOT NULL,
	"webhook_url" text,
	"last_triggered_at" timestamp with time zone,
	"created_by" integer,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "error_source_maps" (
	"id" serial PRIMARY KEY NOT NULL,
	"tenant_id" integer,
	"release" text NOT NULL,
	"file_name" text NOT NULL,
	"size" integer NOT NULL,
	"sha256" text NOT NULL,
	"content" "bytea" NOT NULL,
	"uploaded_by" integer,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "error_events" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"tenant_id" integer,
	"group_id" bigint NOT NULL,
	"type" text NOT NULL,
	"level" text NOT NULL,
	"message" text NOT NULL,
	"stack" text DEFAULT '' NOT NULL,
	"source_url" text DEFAULT '' NOT NULL,
	"page_url" text DEFAULT '' NOT NULL,
	"release" text DEFAULT '' NOT NULL,
	"environment" text NOT NULL,
	"breadcrumbs" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"context" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"http" jsonb,
	"replay_id" text,
	"user_agent" text DEFAULT '' NOT NULL,
	"browser" text DEFAULT '' NOT NULL,
	"os" text DEFAULT '' NOT NULL,
	"identity" text,
	"ip" text DEFAULT '' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "error_group_identities" (
	"group_id" bigint NOT NULL,
	"identity" text NOT NULL,
	"tenant_id" integer,
	"first_seen_at" timestamp with time zone NOT NULL,
	"last_seen_at" timestamp with time zone NOT NULL,
	CONSTRAINT "error_group_identities_group_id_identity_pk" PRIMARY KEY("group_id","identity")
);
--> statement-breakpoint
CREATE TABLE "error_groups" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"tenant_id" integer,
	"fingerprint" text NOT NULL,
	"environment" text NOT NULL,
	"type" text NOT NULL,
	"message" text NOT NULL,
	"normalized_message" text NOT NULL,
	"top_frame" text DEFAULT '' NOT NULL,
	"source_file" text DEFAULT '' NOT NULL,
	"level" text DEFAULT 'error' NOT NULL,
	"status" text DEFAULT 'unresolved' NOT NULL,
	"assignee_id" integer,
	"note" text DEFAULT '' NOT NULL,
	"event_count" bigint DEFAULT 0 NOT NULL,
	"identity_count" integer DEFAULT 0 NOT NULL,
	"first_release" text DEFAULT '' NOT NULL,
	"last_release" text DEFAULT '' NOT NULL,
	"first_seen_at" timestamp with time zone NOT NULL,
	"last_seen_at" timestamp with time zone NOT NULL,
	"resolved_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "error_sites" (
	"id" serial PRIMARY KEY NOT NULL,
	"tenant_id" integer NOT NULL,
	"name" text NOT NULL,
	"site_key" text NOT NULL,
	"allowed_origins" text[] DEFAULT '{}'::text[] NOT NULL,
	"status" text DEFAULT 'active' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE INDEX "error_alert_logs_tenant_created" ON "error_alert_logs" USING btree ("tenant_id","created_at");--> statement-breakpoint
CREATE INDEX "error_alert_logs_rule" ON "error_alert_logs" USING btree ("rule_id");--> statement-breakpoint
CREATE INDEX "error_alert_rules_tenant" ON "error_alert_rules" USING btree ("tenant_id");--> statement-breakpoint
CREATE UNIQUE INDEX "error_source_maps_release_file" ON "error_source_maps" USING btree (coalesce("tenant_id", 0),"release","file_name");--> statement-breakpoint
CREATE INDEX "error_source_maps_tenant_created" ON "error_source_maps" USING btree ("tenant_id","created_at");--> statement-breakpoint
CREATE INDEX "error_events_group_created" ON "error_events" USING btree ("group_id","created_at");--> statement-breakpoint
CREATE INDEX "error_events_tenant_created" ON "error_events" USING btree ("tenant_id","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "error_groups_fingerprint" ON "error_groups" USING btree (coalesce("tenant_id", 0),"fingerprint");--> statement-breakpoint
CREATE INDEX "error_groups_tenant_last_seen" ON "error_groups" USING btree ("tenant_id","last_seen_at");--> statement-breakpoint
CREATE UNIQUE INDEX "error_sites_key" ON "error_sites" USING btree ("site_key");--> statement-breakpoint
CREATE UNIQUE INDEX "error_sites_tenant_name" ON "error_sites" USING btree ("tenant_id","name");