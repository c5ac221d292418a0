CREATE TABLE "storage_configs" (
	"id" serial PRIMARY KEY NOT NULL,
	"tenant_id" integer,
	"name" text NOT NULL,
	"kind" text NOT NULL,
	"settings" jsonb NOT NULL,
	"secret_encrypted" text,
	"is_default" boolean DEFAULT false NOT NULL,
	"status" text DEFAULT 'active' NOT NULL,
	"remark" text DEFAULT '' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "file_objects" (
	"id" serial PRIMARY KEY NOT NULL,
	"storage_config_id" integer,
	"sha256" text NOT NULL,
	"size" bigint NOT NULL,
	"storage_key" text NOT NULL,
	"ref_count" integer DEFAULT 0 NOT NULL,
	"gc_state" text DEFAULT 'live' NOT NULL,
	"orphaned_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "file_objects_ref_count_nonnegative" CHECK ("file_objects"."ref_count" >= 0)
);
--> statement-breakpoint
CREATE TABLE "file_refs" (
	"id" serial PRIMARY KEY NOT NULL,
	"file_id" integer NOT NULL,
	"owner_type" text NOT NULL,
	"owner_id" integer NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "file_refs_owner" UNIQUE("file_id","owner_type","owner_id")
);
--> statement-breakpoint
CREATE TABLE "file_upload_chunks" (
	"session_id" integer NOT NULL,
	"chunk_index" integer NOT NULL,
	"size" bigint NOT NULL,
	CONSTRAINT "file_upload_chunks_session_id_chunk_index_pk" PRIMARY KEY("session_id","chunk_index")
);
--> statement-breakpoint
CREATE TABLE "file_upload_sessions" (
	"id" serial PRIMARY KEY NOT NULL,
	"tenant_id" integer,
	"owner_user_id" integer,
	"name" text NOT NULL,
	"size" bigint NOT NULL,
	"chunk_size" integer NOT NULL,
	"total_chunks" integer NOT NULL,
	"declared_sha256" text,
	"declared_mime" text,
	"visibility" text NOT NULL,
	"storage_config_id" integer,
	"status" text DEFAULT 'open' NOT NULL,
	"file_id" integer,
	"expires_at" timestamp with time zone NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "managed_files" (
	"id" serial PRIMARY KEY NOT NULL,
	"tenant_id" integer,
	"object_id" integer NOT NULL,
	"name" text NOT NULL,
	"mime" text NOT NULL,
	"declared_mime" text,
	"size" bigint NOT NULL,
	"visibility" text DEFAULT 'private' NOT NULL,
	"owner_user_id" integer,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "cron_job_runs" (
	"id" serial PRIMARY KEY NOT NULL,
	"job_id" integer NOT NULL,
	"handler" text NOT NULL,
	"trigger" text NOT NULL,
	"status" text DEFAULT 'running' NOT NULL,
	"scheduled_at" timestamp with time zone,
	"started_at" timestamp with time zone NOT NULL,
	"finished_at" timestamp with time zone,
	"duration_ms" integer,
	"result" jsonb,
	"error" text,
	"triggered_by" integer
);
--> statement-breakpoint
CREATE TABLE "cron_jobs" (
	"id" serial PRIMARY KEY NOT NULL,
	"tenant_id" integer,
	"name" text NOT NULL,
	"handler" text NOT NULL,
	"cron" text NOT NULL,
	"timezone" text DEFAULT 'UTC' NOT NULL,
	"params" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"enabled" boolean DEFAULT true NOT NULL,
	"builtin" boolean DEFAULT false NOT NULL,
	"remark" text DEFAULT '' NOT NULL,
	"last_run_at" timestamp with time zone,
	"last_status" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "cron_jobs_tenant_name" UNIQUE NULLS NOT DISTINCT("tenant_id","name")
);
--> statement-breakpoint
CREATE TABLE "async_tasks" (
	"id" serial PRIMARY KEY NOT NULL,
	"tenant_id" integer,
	"owner_user_id" integer NOT NULL,
	"kind" text NOT NULL,
	"params" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"status" text DEFAULT 'queued' NOT NULL,
	"progress" smallint DEFAULT 0 NOT NULL,
	"result_file_id" integer,
	"result_expires_at" timestamp with time zone,
	"error" text,
	"cancel_requested" boolean DEFAULT false NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"started_at" timestamp with time zone,
	"finished_at" timestamp with time zone,
	CONSTRAINT "async_tasks_progress_range" CHECK ("async_tasks"."progress" between 0 and 100),
	CONSTRAINT "async_tasks_status_known" CHECK ("async_tasks"."status" in ('queued', 'running', 'succeeded', 'failed', 'cancelled'))
);
--> statement-breakpoint
ALTER TABLE "file_objects" ADD CONSTRAINT "file_objects_storage_config_id_storage_configs_id_fk" FOREIGN KEY ("storage_config_id") REFERENCES "public"."storage_configs"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "file_refs" ADD CONSTRAINT "file_refs_file_id_managed_files_id_fk" FOREIGN KEY ("file_id") REFERENCES "public"."managed_files"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "file_upload_chunks" ADD CONSTRAINT "file_upload_chunks_session_id_file_upload_sessions_id_fk" FOREIGN KEY ("session_id") REFERENCES "public"."file_upload_sessions"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "file_upload_sessions" ADD CONSTRAINT "file_upload_sessions_storage_config_id_storage_configs_id_fk" FOREIGN KEY ("storage_config_id") REFERENCES "public"."storage_configs"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "managed_files" ADD CONSTRAINT "managed_files_object_id_file_objects_id_fk" FOREIGN KEY ("object_id") REFERENCES "public"."file_objects"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "cron_job_runs" ADD CONSTRAINT "cron_job_runs_job_id_cron_jobs_id_fk" FOREIGN KEY ("job_id") REFERENCES "public"."cron_jobs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "storage_configs_tenant_name" ON "storage_configs" USING btree (coalesce("tenant_id", 0),"name");--> statement-breakpoint
CREATE UNIQUE INDEX "storage_configs_one_default" ON "storage_configs" USING btree (coalesce("tenant_id", 0)) WHERE "storage_configs"."is_default";--> statement-breakpoint
CREATE UNIQUE INDEX "file_objects_content" ON "file_objects" USING btree (coalesce("storage_config_id", 0),"sha256") WHERE "file_objects"."gc_state" <> 'deleting';--> statement-breakpoint
CREATE INDEX "file_objects_gc" ON "file_objects" USING btree ("gc_state","orphaned_at");--> statement-breakpoint
CREATE INDEX "file_refs_by_owner" ON "file_refs" USING btree ("owner_type","owner_id");--> statement-breakpoint
CREATE INDEX "file_upload_sessions_expiry" ON "file_upload_sessions" USING btree ("expires_at");--> statement-breakpoint
CREATE INDEX "managed_files_tenant" ON "managed_files" USING btree ("tenant_id","id");--> statement-breakpoint
CREATE INDEX "managed_files_object" ON "managed_files" USING btree ("object_id");--> statement-breakpoint
CREATE INDEX "cron_job_runs_job_started" ON "cron_job_runs" USING btree ("job_id","started_at");--> statement-breakpoint
CREATE UNIQUE INDEX "cron_job_runs_job_tick" ON "cron_job_runs" USING btree ("job_id","scheduled_at") WHERE "cron_job_runs"."trigger" = 'scheduled';--> statement-breakpoint
CREATE INDEX "async_tasks_owner" ON "async_tasks" USING btree ("tenant_id","owner_user_id","id");--> statement-breakpoint
CREATE INDEX "async_tasks_result_expiry" ON "async_tasks" USING btree ("result_expires_at") WHERE "async_tasks"."result_file_id" is not null;