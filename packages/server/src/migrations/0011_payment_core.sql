CREATE TABLE "payment_channel_configs" (
	"id" serial PRIMARY KEY NOT NULL,
	"tenant_id" integer,
	"name" text NOT NULL,
	"is_default" boolean DEFAULT false NOT NULL,
	"status" text DEFAULT 'active' NOT NULL,
	"remark" text DEFAULT '' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"channel" text NOT NULL,
	"fields" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"notify_url" text DEFAULT '' NOT NULL,
	"secrets_encrypted" text
);
--> statement-breakpoint
CREATE TABLE "payment_events" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"event_id" uuid NOT NULL,
	"tenant_id" integer NOT NULL,
	"type" text NOT NULL,
	"aggregate_type" text NOT NULL,
	"aggregate_id" integer NOT NULL,
	"payload" jsonb NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"lease_until" timestamp with time zone,
	"last_error" text,
	"delivered_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "payment_events_status" CHECK ("payment_events"."status" in ('pending', 'done', 'failed')),
	CONSTRAINT "payment_events_attempts" CHECK ("payment_events"."attempts" >= 0)
);
--> statement-breakpoint
CREATE TABLE "payment_notify_logs" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"tenant_id" integer,
	"config_id" integer,
	"channel" text NOT NULL,
	"scene" text,
	"order_no" text,
	"raw_body" text NOT NULL,
	"headers" jsonb NOT NULL,
	"signature_valid" boolean NOT NULL,
	"result" text NOT NULL,
	"message" text DEFAULT '' NOT NULL,
	"ip" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "payment_orders" (
	"id" serial PRIMARY KEY NOT NULL,
	"tenant_id" integer NOT NULL,
	"order_no" text NOT NULL,
	"amount" integer NOT NULL,
	"currency" text NOT NULL,
	"channel" text NOT NULL,
	"config_id" integer NOT NULL,
	"subject" text NOT NULL,
	"status" text NOT NULL,
	"channel_trade_no" text,
	"pay_payload" jsonb,
	"paid_at" timestamp with time zone,
	"closed_at" timestamp with time zone,
	"expires_at" timestamp with time zone NOT NULL,
	"refunded_amount" integer DEFAULT 0 NOT NULL,
	"version" integer DEFAULT 1 NOT NULL,
	"created_by" integer,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "payment_orders_amount_positive" CHECK ("payment_orders"."amount" > 0),
	CONSTRAINT "payment_orders_refunded_range" CHECK ("payment_orders"."refunded_amount" >= 0 and "payment_orders"."refunded_amount" <= "payment_orders"."amount"),
	CONSTRAINT "payment_orders_status" CHECK ("payment_orders"."status" in ('paying', 'succeeded', 'closed', 'failed', 'unknown')),
	CONSTRAINT "payment_orders_refund_needs_payment" CHECK ("payment_orders"."refunded_amount" = 0 or "payment_orders"."status" = 'succeeded')
);
--> statement-breakpoint
CREATE TABLE "payment_refunds" (
	"id" serial PRIMARY KEY NOT NULL,
	"tenant_id" integer NOT NULL,
	"refund_no" text NOT NULL,
	"order_id" integer NOT NULL,
	"amount" integer NOT NULL,
	"currency" text NOT NULL,
	"status" text NOT NULL,
	"reason" text DEFAULT '' NOT NULL,
	"channel_refund_no" text,
	"refunded_at" timestamp with time zone,
	"version" integer DEFAULT 1 NOT NULL,
	"created_by" integer,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "payment_refunds_amount_positive" CHECK ("payment_refunds"."amount" > 0),
	CONSTRAINT "payment_refunds_status" CHECK ("payment_refunds"."status" in ('processing', 'succeeded', 'failed', 'unknown'))
);
--> statement-breakpoint
ALTER TABLE "payment_orders" ADD CONSTRAINT "payment_orders_config_id_payment_channel_configs_id_fk" FOREIGN KEY ("config_id") REFERENCES "public"."payment_channel_configs"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "payment_refunds" ADD CONSTRAINT "payment_refunds_order_id_payment_orders_id_fk" FOREIGN KEY ("order_id") REFERENCES "public"."payment_orders"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "payment_channel_configs_tenant_name" ON "payment_channel_configs" USING btree (coalesce("tenant_id", 0),"name");--> statement-breakpoint
CREATE UNIQUE INDEX "payment_channel_configs_one_default" ON "payment_channel_configs" USING btree (coalesce("tenant_id", 0)) WHERE "payment_channel_configs"."is_default";--> statement-breakpoint
CREATE INDEX "payment_channel_configs_channel" ON "payment_channel_configs" USING btree ("channel","status");--> statement-breakpoint
CREATE UNIQUE INDEX "payment_events_event_id" ON "payment_events" USING btree ("event_id");--> statement-breakpoint
CREATE UNIQUE INDEX "payment_events_aggregate_type" ON "payment_events" USING btree ("aggregate_type","aggregate_id","type");--> statement-breakpoint
CREATE INDEX "payment_events_tenant_created" ON "payment_events" USING btree ("tenant_id","created_at");--> statement-breakpoint
CREATE INDEX "payment_events_pending" ON "payment_events" USING btree ("id") WHERE "payment_events"."status" = 'pending';--> statement-breakpoint
CREATE INDEX "payment_notify_logs_tenant_created" ON "payment_notify_logs" USING btree ("tenant_id","created_at");--> statement-breakpoint
CREATE INDEX "payment_notify_logs_order_no" ON "payment_notify_logs" USING btree ("order_no");--> statement-breakpoint
CREATE UNIQUE INDEX "payment_orders_tenant_order_no" ON "payment_orders" USING btree ("tenant_id","order_no");--> statement-breakpoint
CREATE INDEX "payment_orders_tenant_created" ON "payment_orders" USING btree ("tenant_id","created_at");--> statement-breakpoint
CREATE INDEX "payment_orders_open" ON "payment_orders" USING btree ("created_at") WHERE "payment_orders"."status" in ('paying', 'unknown');--> statement-breakpoint
CREATE UNIQUE INDEX "payment_refunds_tenant_refund_no" ON "payment_refunds" USING btree ("tenant_id","refund_no");--> statement-breakpoint
CREATE INDEX "payment_refunds_order" ON "payment_refunds" USING btree ("order_id");--> statement-breakpoint
CREATE INDEX "payment_refunds_tenant_created" ON "payment_refunds" USING btree ("tenant_id","created_at");