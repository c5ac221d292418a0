DROP INDEX "error_sites_tenant_name";--> statement-breakpoint
ALTER TABLE "error_sites" ALTER COLUMN "tenant_id" DROP NOT NULL;--> statement-breakpoint
CREATE UNIQUE INDEX "error_sites_platform" ON "error_sites" USING btree (("tenant_id" is null)) WHERE "error_sites"."tenant_id" is null;--> statement-breakpoint
CREATE UNIQUE INDEX "error_sites_tenant_name" ON "error_sites" USING btree (coalesce("tenant_id", 0),"name");