DROP INDEX "webhook_events_pending_idx";--> statement-breakpoint
ALTER TABLE "webhook_events" DROP COLUMN "fanned_out_at";