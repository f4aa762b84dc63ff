ALTER TABLE "webhook_subscriptions" ALTER COLUMN "secret" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "idempotency_keys" ADD COLUMN "sealed_secret" text;--> statement-breakpoint
ALTER TABLE "webhook_subscriptions" ADD COLUMN "secret_sealed" text;--> statement-breakpoint
ALTER TABLE "webhook_subscriptions" ADD COLUMN "previous_secret_sealed" text;