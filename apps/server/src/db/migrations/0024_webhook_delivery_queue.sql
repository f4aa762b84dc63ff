CREATE TABLE "webhook_delivery_queue" (
	"id" text NOT NULL,
	"tenant_id" text NOT NULL,
	"subscription_id" text NOT NULL,
	"next_attempt_at" timestamp (3) with time zone NOT NULL,
	"lease_token" text,
	"leased_until" timestamp (3) with time zone,
	"turn_at" timestamp (3) with time zone,
	CONSTRAINT "webhook_delivery_queue_pkey" PRIMARY KEY("tenant_id","id")
);
--> statement-breakpoint
CREATE INDEX "webhook_delivery_queue_tenant_idx" ON "webhook_delivery_queue" USING btree ("tenant_id","next_attempt_at");--> statement-breakpoint
CREATE INDEX "webhook_delivery_queue_subscription_idx" ON "webhook_delivery_queue" USING btree ("tenant_id","subscription_id","next_attempt_at");