-- Hand-edited (docs/scale-out.md, step 3): the ten sharded tables that followed a parent row without
-- a tenant_id of their own get it, filled from that parent: a role's menus from the role, a user's
-- roles and positions from the user, a group's members from the group, refresh tokens from their
-- session, an announcement's recipients and reads from the announcement, a job's runs from the
-- job, file references from the managed file, upload chunks from the upload session. Added
-- nullable, filled, then NOT NULL (every child row has its parent: each points at it with a
-- foreign key) and a foreign key to tenants (id), like every other tenant_id (decision 0043).
ALTER TABLE "role_menus" ADD COLUMN "tenant_id" integer;--> statement-breakpoint
ALTER TABLE "user_roles" ADD COLUMN "tenant_id" integer;--> statement-breakpoint
ALTER TABLE "user_positions" ADD COLUMN "tenant_id" integer;--> statement-breakpoint
ALTER TABLE "user_group_members" ADD COLUMN "tenant_id" integer;--> statement-breakpoint
ALTER TABLE "refresh_tokens" ADD COLUMN "tenant_id" integer;--> statement-breakpoint
ALTER TABLE "announcement_recipients" ADD COLUMN "tenant_id" integer;--> statement-breakpoint
ALTER TABLE "announcement_reads" ADD COLUMN "tenant_id" integer;--> statement-breakpoint
ALTER TABLE "cron_job_runs" ADD COLUMN "tenant_id" integer;--> statement-breakpoint
ALTER TABLE "file_refs" ADD COLUMN "tenant_id" integer;--> statement-breakpoint
ALTER TABLE "file_upload_chunks" ADD COLUMN "tenant_id" integer;--> statement-breakpoint
UPDATE "role_menus" SET "tenant_id" = p."tenant_id" FROM "roles" p WHERE p."id" = "role_menus"."role_id";--> statement-breakpoint
UPDATE "user_roles" SET "tenant_id" = p."tenant_id" FROM "users" p WHERE p."id" = "user_roles"."user_id";--> statement-breakpoint
UPDATE "user_positions" SET "tenant_id" = p."tenant_id" FROM "users" p WHERE p."id" = "user_positions"."user_id";--> statement-breakpoint
UPDATE "user_group_members" SET "tenant_id" = p."tenant_id" FROM "user_groups" p WHERE p."id" = "user_group_members"."group_id";--> statement-breakpoint
UPDATE "refresh_tokens" SET "tenant_id" = p."tenant_id" FROM "user_sessions" p WHERE p."id" = "refresh_tokens"."session_id";--> statement-breakpoint
UPDATE "announcement_recipients" SET "tenant_id" = p."tenant_id" FROM "announcements" p WHERE p."id" = "announcement_recipients"."announcement_id";--> statement-breakpoint
UPDATE "announcement_reads" SET "tenant_id" = p."tenant_id" FROM "announcements" p WHERE p."id" = "announcement_reads"."announcement_id";--> statement-breakpoint
UPDATE "cron_job_runs" SET "tenant_id" = p."tenant_id" FROM "cron_jobs" p WHERE p."id" = "cron_job_runs"."job_id";--> statement-breakpoint
UPDATE "file_refs" SET "tenant_id" = p."tenant_id" FROM "managed_files" p WHERE p."id" = "file_refs"."file_id";--> statement-breakpoint
UPDATE "file_upload_chunks" SET "tenant_id" = p."tenant_id" FROM "file_upload_sessions" p WHERE p."id" = "file_upload_chunks"."session_id";--> statement-breakpoint
ALTER TABLE "role_menus" ALTER COLUMN "tenant_id" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "user_roles" ALTER COLUMN "tenant_id" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "user_positions" ALTER COLUMN "tenant_id" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "user_group_members" ALTER COLUMN "tenant_id" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "refresh_tokens" ALTER COLUMN "tenant_id" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "announcement_recipients" ALTER COLUMN "tenant_id" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "announcement_reads" ALTER COLUMN "tenant_id" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "cron_job_runs" ALTER COLUMN "tenant_id" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "file_refs" ALTER COLUMN "tenant_id" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "file_upload_chunks" ALTER COLUMN "tenant_id" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "role_menus" ADD CONSTRAINT "role_menus_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "user_roles" ADD CONSTRAINT "user_roles_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "user_positions" ADD CONSTRAINT "user_positions_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "user_group_members" ADD CONSTRAINT "user_group_members_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "refresh_tokens" ADD CONSTRAINT "refresh_tokens_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "announcement_recipients" ADD CONSTRAINT "announcement_recipients_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "announcement_reads" ADD CONSTRAINT "announcement_reads_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "cron_job_runs" ADD CONSTRAINT "cron_job_runs_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "file_refs" ADD CONSTRAINT "file_refs_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "file_upload_chunks" ADD CONSTRAINT "file_upload_chunks_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE no action ON UPDATE no action;
