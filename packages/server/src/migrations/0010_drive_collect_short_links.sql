CREATE TABLE "drive_collect_submissions" (
	"id" serial PRIMARY KEY NOT NULL,
	"tenant_id" integer,
	"link_id" integer NOT NULL,
	"space_id" integer NOT NULL,
	"node_id" integer,
	"file_name" text NOT NULL,
	"original_name" text NOT NULL,
	"size" bigint NOT NULL,
	"sha256" text NOT NULL,
	"submitter_name" text,
	"note" text,
	"user_id" integer,
	"ip" text,
	"user_agent" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "drive_share_links" ADD COLUMN "collect_file_count" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "drive_share_links" ADD COLUMN "collect_bytes" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "drive_share_links" ADD COLUMN "short_code" text;--> statement-breakpoint
ALTER TABLE "drive_collect_submissions" ADD CONSTRAINT "drive_collect_submissions_link_id_drive_share_links_id_fk" FOREIGN KEY ("link_id") REFERENCES "public"."drive_share_links"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "drive_collect_submissions_link" ON "drive_collect_submissions" USING btree ("link_id","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "drive_share_links_short_code" ON "drive_share_links" USING btree ("short_code");