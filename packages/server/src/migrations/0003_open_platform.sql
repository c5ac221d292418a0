CREATE TABLE "open_apps" (
	"id" serial PRIMARY KEY NOT NULL,
	"tenant_id" integer,
	"name" text NOT NULL,
	"description" text DEFAULT '' NOT NULL,
	"homepage_url" text DEFAULT '' NOT NULL,
	"logo_url" text DEFAULT '' NOT NULL,
	"client_id" text NOT NULL,
	"client_type" text NOT NULL,
	"secret_hash" text,
	"secret_hint" text,
	"previous_secret_hash" text,
	"previous_secret_expires_at" timestamp with time zone,
	"secret_rotated_at" timestamp with time zone,
	"grant_types" text[] NOT NULL,
	"redirect_uris" text[] DEFAULT '{}'::text[] NOT NULL,
	"allowed_scopes" text[] DEFAULT '{}'::text[] NOT NULL,
	"status" text DEFAULT 'active' NOT NULL,
	"created_by" integer,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "oauth_codes" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"code_hash" text NOT NULL,
	"tenant_id" integer,
	"app_id" integer NOT NULL,
	"user_id" integer NOT NULL,
	"redirect_uri" text NOT NULL,
	"scopes" text[] NOT NULL,
	"code_challenge" text NOT NULL,
	"nonce" text,
	"family_id" uuid DEFAULT gen_random_uuid() NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"used_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "oauth_consents" (
	"id" serial PRIMARY KEY NOT NULL,
	"tenant_id" integer,
	"user_id" integer NOT NULL,
	"app_id" integer NOT NULL,
	"scopes" text[] NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "oauth_signing_keys" (
	"id" serial PRIMARY KEY NOT NULL,
	"kid" text NOT NULL,
	"alg" text NOT NULL,
	"public_jwk" jsonb NOT NULL,
	"private_key_encrypted" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"retired_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "oauth_tokens" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"token_hash" text NOT NULL,
	"kind" text NOT NULL,
	"tenant_id" integer,
	"app_id" integer NOT NULL,
	"user_id" integer,
	"scopes" text[] NOT NULL,
	"family_id" uuid,
	"expires_at" timestamp with time zone NOT NULL,
	"used_at" timestamp with time zone,
	"revoked_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "open_webhook_attempts" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"tenant_id" integer,
	"delivery_id" bigint NOT NULL,
	"attempt" integer NOT NULL,
	"url" text NOT NULL,
	"status_code" integer,
	"error" text,
	"response_body" text,
	"duration_ms" integer NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "open_webhook_deliveries" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"tenant_id" integer,
	"subscription_id" integer NOT NULL,
	"app_id" integer,
	"event_id" uuid NOT NULL,
	"event_type" text NOT NULL,
	"payload" jsonb NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"next_attempt_at" timestamp with time zone,
	"locked_until" timestamp with time zone,
	"last_status_code" integer,
	"last_error" text,
	"last_duration_ms" integer,
	"delivered_at" timestamp with time zone,
	"redelivery_of" bigint,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "open_webhook_subscriptions" (
	"id" serial PRIMARY KEY NOT NULL,
	"tenant_id" integer,
	"app_id" integer,
	"url" text NOT NULL,
	"events" text[] NOT NULL,
	"description" text DEFAULT '' NOT NULL,
	"secret_encrypted" text NOT NULL,
	"secret_hint" text NOT NULL,
	"previous_secret_encrypted" text,
	"previous_secret_expires_at" timestamp with time zone,
	"status" text DEFAULT 'active' NOT NULL,
	"consecutive_failures" integer DEFAULT 0 NOT NULL,
	"failing_since" timestamp with time zone,
	"disabled_at" timestamp with time zone,
	"disabled_reason" text,
	"created_by" integer,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "open_webhook_attempts" ADD CONSTRAINT "open_webhook_attempts_delivery_id_open_webhook_deliveries_id_fk" FOREIGN KEY ("delivery_id") REFERENCES "public"."open_webhook_deliveries"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "open_webhook_deliveries" ADD CONSTRAINT "open_webhook_deliveries_subscription_id_open_webhook_subscriptions_id_fk" FOREIGN KEY ("subscription_id") REFERENCES "public"."open_webhook_subscriptions"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "open_apps_client_id" ON "open_apps" USING btree ("client_id");--> statement-breakpoint
CREATE UNIQUE INDEX "open_apps_tenant_name" ON "open_apps" USING btree (coalesce("tenant_id", 0),"name");--> statement-breakpoint
CREATE UNIQUE INDEX "oauth_codes_hash" ON "oauth_codes" USING btree ("code_hash");--> statement-breakpoint
CREATE INDEX "oauth_codes_expires" ON "oauth_codes" USING btree ("expires_at");--> statement-breakpoint
CREATE UNIQUE INDEX "oauth_consents_user_app" ON "oauth_consents" USING btree ("user_id","app_id");--> statement-breakpoint
CREATE INDEX "oauth_consents_app" ON "oauth_consents" USING btree ("app_id");--> statement-breakpoint
CREATE UNIQUE INDEX "oauth_signing_keys_kid" ON "oauth_signing_keys" USING btree ("kid");--> statement-breakpoint
CREATE UNIQUE INDEX "oauth_signing_keys_one_active" ON "oauth_signing_keys" USING btree ("alg") WHERE "oauth_signing_keys"."retired_at" is null;--> statement-breakpoint
CREATE UNIQUE INDEX "oauth_tokens_hash" ON "oauth_tokens" USING btree ("token_hash");--> statement-breakpoint
CREATE INDEX "oauth_tokens_family" ON "oauth_tokens" USING btree ("family_id");--> statement-breakpoint
CREATE INDEX "oauth_tokens_user_app" ON "oauth_tokens" USING btree ("user_id","app_id");--> statement-breakpoint
CREATE INDEX "oauth_tokens_app" ON "oauth_tokens" USING btree ("app_id");--> statement-breakpoint
CREATE INDEX "oauth_tokens_expires" ON "oauth_tokens" USING btree ("expires_at");--> statement-breakpoint
CREATE UNIQUE INDEX "open_webhook_attempts_delivery" ON "open_webhook_attempts" USING btree ("delivery_id","attempt");--> statement-breakpoint
CREATE INDEX "open_webhook_deliveries_due" ON "open_webhook_deliveries" USING btree ("next_attempt_at") WHERE "open_webhook_deliveries"."status" = 'pending';--> statement-breakpoint
CREATE INDEX "open_webhook_deliveries_tenant" ON "open_webhook_deliveries" USING btree ("tenant_id","id");--> statement-breakpoint
CREATE INDEX "open_webhook_deliveries_subscription" ON "open_webhook_deliveries" USING btree ("subscription_id","id");--> statement-breakpoint
CREATE INDEX "open_webhook_deliveries_event" ON "open_webhook_deliveries" USING btree ("event_id");--> statement-breakpoint
CREATE INDEX "open_webhook_deliveries_finished" ON "open_webhook_deliveries" USING btree ("created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "open_webhook_subscriptions_app_url" ON "open_webhook_subscriptions" USING btree (coalesce("tenant_id", 0),coalesce("app_id", 0),"url");--> statement-breakpoint
CREATE INDEX "open_webhook_subscriptions_tenant_status" ON "open_webhook_subscriptions" USING btree ("tenant_id","status");--> statement-breakpoint
CREATE INDEX "open_webhook_subscriptions_app" ON "open_webhook_subscriptions" USING btree ("app_id");