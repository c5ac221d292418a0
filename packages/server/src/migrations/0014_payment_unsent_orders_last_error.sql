ALTER TABLE "payment_orders" DROP CONSTRAINT "payment_orders_status";--> statement-breakpoint
DROP INDEX "payment_orders_open";--> statement-breakpoint
ALTER TABLE "payment_orders" ADD COLUMN "last_error" text;--> statement-breakpoint
ALTER TABLE "payment_refunds" ADD COLUMN "last_error" text;--> statement-breakpoint
CREATE INDEX "payment_orders_open" ON "payment_orders" USING btree ("created_at") WHERE "payment_orders"."status" in ('paying', 'unknown', 'unsent');--> statement-breakpoint
ALTER TABLE "payment_orders" ADD CONSTRAINT "payment_orders_status" CHECK ("payment_orders"."status" in ('unsent', 'paying', 'succeeded', 'closed', 'failed', 'unknown'));