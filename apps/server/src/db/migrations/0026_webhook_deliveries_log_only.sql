DROP INDEX "webhook_deliveries_pending_tenant_idx";--> statement-breakpoint
DROP INDEX "webhook_deliveries_pending_idx";--> statement-breakpoint
ALTER TABLE "webhook_deliveries" DROP COLUMN "lease_token";--> statement-breakpoint
ALTER TABLE "webhook_deliveries" DROP COLUMN "leased_until";--> statement-breakpoint
ALTER TABLE "webhook_deliveries" DROP COLUMN "turn_at";