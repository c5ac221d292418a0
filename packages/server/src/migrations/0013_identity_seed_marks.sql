CREATE TABLE "identity_seed_marks" (
	"kind" text NOT NULL,
	"key" text NOT NULL,
	"applied_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "identity_seed_marks_kind_key_pk" PRIMARY KEY("kind","key")
);
