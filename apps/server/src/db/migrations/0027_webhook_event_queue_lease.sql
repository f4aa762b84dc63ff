ALTER TABLE "webhook_event_queue" ADD COLUMN "lease_token" text;--> statement-breakpoint
ALTER TABLE "webhook_event_queue" ADD COLUMN "leased_until" timestamp (3) with time zone;