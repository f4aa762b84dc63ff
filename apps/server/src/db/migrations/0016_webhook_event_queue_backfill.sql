-- custom migration (drizzle-kit generate --custom): hand-written, runs once; see src/db/schema/webhooks.ts (webhookEventQueue)
-- The events not fanned out yet move to the fan-out queue before the mark they were found by goes.
INSERT INTO "webhook_event_queue" ("event_id", "tenant_id")
SELECT "id", "tenant_id" FROM "webhook_events" WHERE "fanned_out_at" IS NULL
ON CONFLICT DO NOTHING;
