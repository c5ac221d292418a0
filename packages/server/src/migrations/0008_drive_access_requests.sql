CREATE TABLE "drive_access_requests" (
	"id" serial PRIMARY KEY NOT NULL,
	"tenant_id" integer,
	"space_id" integer NOT NULL,
	"node_id" integer NOT NULL,
	"requester_user_id" integer NOT NULL,
	"requested_role" text NOT NULL,
	"message" text DEFAULT '' NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"decider_user_id" integer,
	"granted_role" text,
	"grant_expires_at" timestamp with time zone,
	"decision_note" text,
	"decided_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "drive_access_requests_status" CHECK ("drive_access_requests"."status" in ('pending', 'approved', 'rejected', 'withdrawn')),
	CONSTRAINT "drive_access_requests_requested_role" CHECK ("drive_access_requests"."requested_role" in ('viewer', 'downloader', 'editor', 'manager')),
	CONSTRAINT "drive_access_requests_granted_role" CHECK ("drive_access_requests"."granted_role" is null or "drive_access_requests"."granted_role" in ('viewer', 'downloader', 'editor', 'manager'))
);
--> statement-breakpoint
ALTER TABLE "drive_access_requests" ADD CONSTRAINT "drive_access_requests_node_id_drive_nodes_id_fk" FOREIGN KEY ("node_id") REFERENCES "public"."drive_nodes"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "drive_access_requests_pending" ON "drive_access_requests" USING btree ("node_id","requester_user_id") WHERE "drive_access_requests"."status" = 'pending';--> statement-breakpoint
CREATE INDEX "drive_access_requests_node" ON "drive_access_requests" USING btree ("node_id","status");--> statement-breakpoint
CREATE INDEX "drive_access_requests_requester" ON "drive_access_requests" USING btree ("requester_user_id","created_at");