-- custom migration (drizzle-kit generate --custom): hand-written, runs once; see src/db/schema/webhooks.ts (webhookDeliveryQueue)
-- Every pending attempt moves to the delivery queue, with its lease and its throttle turn, before
-- the log's columns they were kept in go: an attempt leased now is still leased, none is lost.
INSERT INTO "webhook_delivery_queue" ("id", "tenant_id", "subscription_id", "next_attempt_at", "lease_token", "leased_until", "turn_at")
SELECT "id", "tenant_id", "subscription_id", coalesce("next_attempt_at", "created_at"), "lease_token", "leased_until", "turn_at"
FROM "webhook_deliveries" WHERE "status" = 'pending'
ON CONFLICT DO NOTHING;--> statement-breakpoint
-- Room on each page for a lease to be a heap-only update (lease_token and leased_until are in no index).
ALTER TABLE "webhook_delivery_queue" SET (fillfactor = 70);
