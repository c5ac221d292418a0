CREATE TABLE "drive_share_access_logs" (
	"id" bigserial NOT NULL,
	"tenant_id" integer,
	"link_id" integer NOT NULL,
	"node_id" integer,
	"event" text NOT NULL,
	"user_id" integer,
	"ip" text,
	"user_agent" text,
	"detail" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "drive_share_access_logs_id_created_at_pk" PRIMARY KEY("id","created_at")
) PARTITION BY RANGE ("created_at");
--> statement-breakpoint
-- One partition per UTC month (spec §8), like drive_activities; the default partition catches rows
-- should the monthly task not have run.
CREATE TABLE "drive_share_access_logs_default" PARTITION OF "drive_share_access_logs" DEFAULT;
--> statement-breakpoint
DO $$
DECLARE m date := date_trunc('month', now() AT TIME ZONE 'UTC')::date;
BEGIN
  FOR i IN 0..2 LOOP
    EXECUTE format(
      'CREATE TABLE IF NOT EXISTS %I PARTITION OF drive_share_access_logs FOR VALUES FROM (%L) TO (%L)',
      'drive_share_access_logs_' || to_char(m + make_interval(months => i), 'YYYYMM'),
      (m + make_interval(months => i))::timestamp AT TIME ZONE 'UTC',
      (m + make_interval(months => i + 1))::timestamp AT TIME ZONE 'UTC');
  END LOOP;
END $$;
--> statement-breakpoint
CREATE TABLE "drive_share_links" (
	"id" serial PRIMARY KEY NOT NULL,
	"tenant_id" integer,
	"space_id" integer NOT NULL,
	"node_id" integer NOT NULL,
	"kind" text DEFAULT 'share' NOT NULL,
	"title" text DEFAULT '' NOT NULL,
	"token_hash" text NOT NULL,
	"token_encrypted" text NOT NULL,
	"password_hash" text,
	"capabilities" text[] DEFAULT '{preview}'::text[] NOT NULL,
	"expires_at" timestamp with time zone,
	"max_access_count" integer,
	"access_count" integer DEFAULT 0 NOT NULL,
	"max_download_count" integer,
	"download_count" integer DEFAULT 0 NOT NULL,
	"allowed_ips" text[] DEFAULT '{}'::text[] NOT NULL,
	"watermark" boolean DEFAULT false NOT NULL,
	"collect_policy" jsonb,
	"session_version" integer DEFAULT 1 NOT NULL,
	"status" text DEFAULT 'active' NOT NULL,
	"revoked_at" timestamp with time zone,
	"revoked_by" integer,
	"reminded_at" timestamp with time zone,
	"created_by" integer NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "drive_share_links_kind" CHECK ("drive_share_links"."kind" in ('share', 'collect')),
	CONSTRAINT "drive_share_links_status" CHECK ("drive_share_links"."status" in ('active', 'revoked')),
	CONSTRAINT "drive_share_links_counts" CHECK ("drive_share_links"."access_count" >= 0 and "drive_share_links"."download_count" >= 0)
);
--> statement-breakpoint
ALTER TABLE "drive_share_links" ADD CONSTRAINT "drive_share_links_node_id_drive_nodes_id_fk" FOREIGN KEY ("node_id") REFERENCES "public"."drive_nodes"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "drive_share_access_logs_link" ON "drive_share_access_logs" USING btree ("link_id","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "drive_share_links_token" ON "drive_share_links" USING btree ("token_hash");--> statement-breakpoint
CREATE INDEX "drive_share_links_node" ON "drive_share_links" USING btree ("node_id");--> statement-breakpoint
CREATE INDEX "drive_share_links_creator" ON "drive_share_links" USING btree ("created_by","created_at");