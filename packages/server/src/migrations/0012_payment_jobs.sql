ALTER TABLE "payment_orders" ADD COLUMN "query_lease_until" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "payment_refunds" ADD COLUMN "query_lease_until" timestamp with time zone;--> statement-breakpoint
CREATE INDEX "payment_refunds_open" ON "payment_refunds" USING btree ("created_at") WHERE "payment_refunds"."status" in ('processing', 'unknown');