CREATE TABLE "provider_usage" (
	"app_id" text NOT NULL,
	"user_id" text NOT NULL,
	"day" date NOT NULL,
	"provider" text NOT NULL,
	"model" text NOT NULL,
	"stage" text NOT NULL,
	"calls" integer DEFAULT 0 NOT NULL,
	"input_tokens" integer DEFAULT 0 NOT NULL,
	"output_tokens" integer DEFAULT 0 NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "provider_usage_app_id_day_user_id_provider_model_stage_pk" PRIMARY KEY("app_id","day","user_id","provider","model","stage")
);
