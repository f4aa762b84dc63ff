ALTER TABLE "webhook_deliveries" ADD COLUMN "turn_at" timestamp (3) with time zone;--> statement-breakpoint
ALTER TABLE "webhook_subscriptions" ADD COLUMN "max_deliveries_per_second" integer;--> statement-breakpoint
ALTER TABLE "webhook_subscriptions" ADD COLUMN "throttle_at" timestamp with time zone;