CREATE TABLE "drive_activities" (
	"id" bigserial NOT NULL,
	"tenant_id" integer,
	"space_id" integer NOT NULL,
	"node_id" integer,
	"actor_user_id" integer,
	"action" text NOT NULL,
	"detail" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"ip" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "drive_activities_id_created_at_pk" PRIMARY KEY("id","created_at")
) PARTITION BY RANGE ("created_at");
--> statement-breakpoint
-- One partition per UTC month (spec §8); the system task drive.activityPartitions creates the
-- months ahead. The default partition only catches rows should that task not have run.
CREATE TABLE "drive_activities_default" PARTITION OF "drive_activities" DEFAULT;
--> statement-breakpoint
DO $$
DECLARE m date := date_trunc('month', now() AT TIME ZONE 'UTC')::date;
BEGIN
  FOR i IN 0..2 LOOP
    EXECUTE format(
      'CREATE TABLE IF NOT EXISTS %I PARTITION OF drive_activities FOR VALUES FROM (%L) TO (%L)',
      'drive_activities_' || to_char(m + make_interval(months => i), 'YYYYMM'),
      (m + make_interval(months => i))::timestamp AT TIME ZONE 'UTC',
      (m + make_interval(months => i + 1))::timestamp AT TIME ZONE 'UTC');
  END LOOP;
END $$;
--> statement-breakpoint
CREATE TABLE "drive_file_versions" (
	"id" serial PRIMARY KEY NOT NULL,
	"tenant_id" integer,
	"space_id" integer NOT NULL,
	"node_id" integer NOT NULL,
	"version_no" integer NOT NULL,
	"file_id" integer NOT NULL,
	"size" bigint NOT NULL,
	"mime" text NOT NULL,
	"sha256" text NOT NULL,
	"pinned" boolean DEFAULT false NOT NULL,
	"comment" text DEFAULT '' NOT NULL,
	"created_by" integer,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "drive_file_versions_no" UNIQUE("node_id","version_no")
);
--> statement-breakpoint
CREATE TABLE "drive_legal_holds" (
	"id" serial PRIMARY KEY NOT NULL,
	"tenant_id" integer,
	"space_id" integer NOT NULL,
	"node_id" integer NOT NULL,
	"reason" text NOT NULL,
	"active" boolean DEFAULT true NOT NULL,
	"placed_by" integer,
	"placed_at" timestamp with time zone DEFAULT now() NOT NULL,
	"released_by" integer,
	"released_at" timestamp with time zone,
	"release_note" text
);
--> statement-breakpoint
CREATE TABLE "drive_node_permissions" (
	"id" serial PRIMARY KEY NOT NULL,
	"tenant_id" integer,
	"space_id" integer NOT NULL,
	"node_id" integer NOT NULL,
	"subject_type" text NOT NULL,
	"subject_id" integer NOT NULL,
	"role" text NOT NULL,
	"expires_at" timestamp with time zone,
	"reminded_at" timestamp with time zone,
	"created_by" integer,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "drive_node_permissions_subject" UNIQUE("node_id","subject_type","subject_id"),
	CONSTRAINT "drive_node_permissions_subject_type" CHECK ("drive_node_permissions"."subject_type" in ('user', 'department', 'role', 'group')),
	CONSTRAINT "drive_node_permissions_role" CHECK ("drive_node_permissions"."role" in ('viewer', 'downloader', 'editor', 'manager'))
);
--> statement-breakpoint
CREATE TABLE "drive_node_renditions" (
	"id" serial PRIMARY KEY NOT NULL,
	"tenant_id" integer,
	"node_id" integer NOT NULL,
	"kind" text NOT NULL,
	"version_id" integer NOT NULL,
	"file_id" integer,
	"status" text DEFAULT 'pending' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "drive_node_renditions_kind" UNIQUE("node_id","kind")
);
--> statement-breakpoint
CREATE TABLE "drive_node_stars" (
	"user_id" integer NOT NULL,
	"node_id" integer NOT NULL,
	"tenant_id" integer,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "drive_node_stars_user_id_node_id_pk" PRIMARY KEY("user_id","node_id")
);
--> statement-breakpoint
CREATE TABLE "drive_nodes" (
	"id" serial PRIMARY KEY NOT NULL,
	"tenant_id" integer,
	"space_id" integer NOT NULL,
	"parent_id" integer,
	"type" text NOT NULL,
	"name" text NOT NULL,
	"ancestor_ids" integer[] DEFAULT '{}'::integer[] NOT NULL,
	"acl_chain_ids" integer[] DEFAULT '{}'::integer[] NOT NULL,
	"acl_open" boolean DEFAULT true NOT NULL,
	"inherit_permissions" boolean DEFAULT true NOT NULL,
	"size" bigint DEFAULT 0 NOT NULL,
	"mime" text,
	"sha256" text,
	"current_version_id" integer,
	"version_no" integer DEFAULT 0 NOT NULL,
	"deleted_at" timestamp with time zone,
	"deleted_by" integer,
	"trash_root_id" integer,
	"lock_user_id" integer,
	"locked_at" timestamp with time zone,
	"lock_expires_at" timestamp with time zone,
	"created_by" integer,
	"updated_by" integer,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "drive_nodes_type" CHECK ("drive_nodes"."type" in ('folder', 'file'))
);
--> statement-breakpoint
CREATE TABLE "drive_recent_access" (
	"user_id" integer NOT NULL,
	"node_id" integer NOT NULL,
	"tenant_id" integer,
	"accessed_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "drive_recent_access_user_id_node_id_pk" PRIMARY KEY("user_id","node_id")
);
--> statement-breakpoint
CREATE TABLE "drive_space_members" (
	"id" serial PRIMARY KEY NOT NULL,
	"tenant_id" integer,
	"space_id" integer NOT NULL,
	"subject_type" text NOT NULL,
	"subject_id" integer NOT NULL,
	"role" text NOT NULL,
	"created_by" integer,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "drive_space_members_subject" UNIQUE("space_id","subject_type","subject_id"),
	CONSTRAINT "drive_space_members_subject_type" CHECK ("drive_space_members"."subject_type" in ('user', 'department', 'role', 'group')),
	CONSTRAINT "drive_space_members_role" CHECK ("drive_space_members"."role" in ('viewer', 'downloader', 'editor', 'manager'))
);
--> statement-breakpoint
CREATE TABLE "drive_spaces" (
	"id" serial PRIMARY KEY NOT NULL,
	"tenant_id" integer,
	"type" text NOT NULL,
	"name" text NOT NULL,
	"description" text DEFAULT '' NOT NULL,
	"owner_user_id" integer,
	"department_id" integer,
	"default_member_role" text,
	"quota_bytes" bigint,
	"used_bytes" bigint DEFAULT 0 NOT NULL,
	"reserved_bytes" bigint DEFAULT 0 NOT NULL,
	"max_versions" integer,
	"external_share_enabled" boolean DEFAULT true NOT NULL,
	"quota_warned_at" timestamp with time zone,
	"archived_at" timestamp with time zone,
	"created_by" integer,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "drive_spaces_type" CHECK ("drive_spaces"."type" in ('personal', 'department', 'team')),
	CONSTRAINT "drive_spaces_default_role" CHECK ("drive_spaces"."default_member_role" is null or "drive_spaces"."default_member_role" in ('viewer', 'downloader', 'editor', 'manager')),
	CONSTRAINT "drive_spaces_usage_nonnegative" CHECK ("drive_spaces"."used_bytes" >= 0 and "drive_spaces"."reserved_bytes" >= 0)
);
--> statement-breakpoint
CREATE TABLE "drive_upload_bindings" (
	"id" serial PRIMARY KEY NOT NULL,
	"tenant_id" integer,
	"upload_session_id" integer NOT NULL,
	"space_id" integer NOT NULL,
	"parent_id" integer,
	"node_id" integer,
	"name" text NOT NULL,
	"conflict" text NOT NULL,
	"reserved_bytes" bigint NOT NULL,
	"user_id" integer NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "drive_upload_bindings_session" UNIQUE("upload_session_id")
);
--> statement-breakpoint
ALTER TABLE "file_upload_sessions" ADD COLUMN "policy" jsonb;--> statement-breakpoint
ALTER TABLE "drive_file_versions" ADD CONSTRAINT "drive_file_versions_node_id_drive_nodes_id_fk" FOREIGN KEY ("node_id") REFERENCES "public"."drive_nodes"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "drive_node_permissions" ADD CONSTRAINT "drive_node_permissions_node_id_drive_nodes_id_fk" FOREIGN KEY ("node_id") REFERENCES "public"."drive_nodes"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "drive_node_renditions" ADD CONSTRAINT "drive_node_renditions_node_id_drive_nodes_id_fk" FOREIGN KEY ("node_id") REFERENCES "public"."drive_nodes"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "drive_node_stars" ADD CONSTRAINT "drive_node_stars_node_id_drive_nodes_id_fk" FOREIGN KEY ("node_id") REFERENCES "public"."drive_nodes"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "drive_nodes" ADD CONSTRAINT "drive_nodes_space_id_drive_spaces_id_fk" FOREIGN KEY ("space_id") REFERENCES "public"."drive_spaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "drive_recent_access" ADD CONSTRAINT "drive_recent_access_node_id_drive_nodes_id_fk" FOREIGN KEY ("node_id") REFERENCES "public"."drive_nodes"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "drive_space_members" ADD CONSTRAINT "drive_space_members_space_id_drive_spaces_id_fk" FOREIGN KEY ("space_id") REFERENCES "public"."drive_spaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "drive_upload_bindings" ADD CONSTRAINT "drive_upload_bindings_space_id_drive_spaces_id_fk" FOREIGN KEY ("space_id") REFERENCES "public"."drive_spaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "drive_activities_node" ON "drive_activities" USING btree ("node_id","created_at");--> statement-breakpoint
CREATE INDEX "drive_activities_space" ON "drive_activities" USING btree ("space_id","created_at");--> statement-breakpoint
CREATE INDEX "drive_file_versions_sha256" ON "drive_file_versions" USING btree ("tenant_id","sha256");--> statement-breakpoint
CREATE INDEX "drive_file_versions_file" ON "drive_file_versions" USING btree ("file_id");--> statement-breakpoint
CREATE UNIQUE INDEX "drive_legal_holds_active" ON "drive_legal_holds" USING btree ("node_id") WHERE "drive_legal_holds"."active";--> statement-breakpoint
CREATE INDEX "drive_legal_holds_space" ON "drive_legal_holds" USING btree ("space_id","active");--> statement-breakpoint
CREATE INDEX "drive_node_permissions_by_subject" ON "drive_node_permissions" USING btree ("subject_type","subject_id");--> statement-breakpoint
CREATE UNIQUE INDEX "drive_nodes_sibling_name" ON "drive_nodes" USING btree ("space_id",coalesce("parent_id", 0),lower("name")) WHERE "drive_nodes"."deleted_at" is null;--> statement-breakpoint
CREATE INDEX "drive_nodes_children" ON "drive_nodes" USING btree ("space_id","parent_id");--> statement-breakpoint
CREATE INDEX "drive_nodes_ancestors" ON "drive_nodes" USING gin ("ancestor_ids");--> statement-breakpoint
CREATE INDEX "drive_nodes_trash" ON "drive_nodes" USING btree ("space_id","deleted_at") WHERE "drive_nodes"."trash_root_id" = "drive_nodes"."id";--> statement-breakpoint
CREATE INDEX "drive_nodes_sha256" ON "drive_nodes" USING btree ("tenant_id","sha256") WHERE "drive_nodes"."deleted_at" is null;--> statement-breakpoint
CREATE INDEX "drive_recent_access_by_user" ON "drive_recent_access" USING btree ("user_id","accessed_at");--> statement-breakpoint
CREATE INDEX "drive_space_members_by_subject" ON "drive_space_members" USING btree ("subject_type","subject_id");--> statement-breakpoint
CREATE UNIQUE INDEX "drive_spaces_personal" ON "drive_spaces" USING btree (coalesce("tenant_id", 0),"owner_user_id") WHERE "drive_spaces"."type" = 'personal';--> statement-breakpoint
CREATE UNIQUE INDEX "drive_spaces_department" ON "drive_spaces" USING btree (coalesce("tenant_id", 0),"department_id") WHERE "drive_spaces"."type" = 'department';--> statement-breakpoint
CREATE INDEX "drive_spaces_tenant" ON "drive_spaces" USING btree ("tenant_id","type");