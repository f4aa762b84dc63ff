DROP INDEX "idempotency_keys_expires_idx";--> statement-breakpoint
CREATE INDEX "webhook_event_queue_order_idx" ON "webhook_event_queue" USING btree ("event_id");--> statement-breakpoint
CREATE INDEX "idempotency_keys_expires_idx" ON "idempotency_keys" USING btree ("tenant_id","expires_at");