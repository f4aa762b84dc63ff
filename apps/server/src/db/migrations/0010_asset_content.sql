CREATE TABLE "asset_chunks" (
	"blob_id" text NOT NULL,
	"seq" integer NOT NULL,
	"data" "bytea" NOT NULL,
	CONSTRAINT "asset_chunks_blob_id_seq_pk" PRIMARY KEY("blob_id","seq")
);
--> statement-breakpoint
CREATE TABLE "asset_files" (
	"asset_id" text NOT NULL,
	"kind" text NOT NULL,
	"tenant_id" text NOT NULL,
	"blob_id" text NOT NULL,
	"content_type" text NOT NULL,
	"size" bigint NOT NULL,
	"sha256" text NOT NULL,
	"updated_at" timestamp (3) with time zone NOT NULL,
	CONSTRAINT "asset_files_asset_id_kind_pk" PRIMARY KEY("asset_id","kind")
);
