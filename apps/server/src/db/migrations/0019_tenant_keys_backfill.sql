-- custom migration (drizzle-kit generate --custom): hand-written, runs once; see src/db/schema/asset-content.ts (assetChunks) and 0020_tenant_leading_keys.sql
-- Each blob chunk takes the tenant of the asset file pointing at its blob. A chunk no asset file
-- points at can never be read (its blob was replaced, or its upload never finished): it goes.
UPDATE "asset_chunks" AS c SET "tenant_id" = f."tenant_id" FROM "asset_files" AS f WHERE f."blob_id" = c."blob_id";--> statement-breakpoint
DELETE FROM "asset_chunks" WHERE "tenant_id" IS NULL;--> statement-breakpoint
-- The next migration keys these tables by (tenant_id, …), but drizzle-kit cannot name a primary key
-- declared on a column and leaves its drop commented out: the old keys go here, by the names
-- PostgreSQL gave them.
ALTER TABLE "account_activity" DROP CONSTRAINT "account_activity_pkey";--> statement-breakpoint
ALTER TABLE "accounts" DROP CONSTRAINT "accounts_pkey";--> statement-breakpoint
ALTER TABLE "assets" DROP CONSTRAINT "assets_pkey";--> statement-breakpoint
ALTER TABLE "audience_sessions" DROP CONSTRAINT "audience_sessions_pkey";--> statement-breakpoint
ALTER TABLE "audience_versions" DROP CONSTRAINT "audience_versions_pkey";--> statement-breakpoint
ALTER TABLE "audiences" DROP CONSTRAINT "audiences_pkey";--> statement-breakpoint
ALTER TABLE "conversations" DROP CONSTRAINT "conversations_pkey";--> statement-breakpoint
ALTER TABLE "message_changes" DROP CONSTRAINT "message_changes_pkey";--> statement-breakpoint
ALTER TABLE "messages" DROP CONSTRAINT "messages_pkey";--> statement-breakpoint
ALTER TABLE "pages" DROP CONSTRAINT "pages_pkey";--> statement-breakpoint
ALTER TABLE "persons" DROP CONSTRAINT "persons_pkey";--> statement-breakpoint
ALTER TABLE "session_interactions" DROP CONSTRAINT "session_interactions_pkey";--> statement-breakpoint
ALTER TABLE "topic_entries" DROP CONSTRAINT "topic_entries_pkey";--> statement-breakpoint
ALTER TABLE "topics" DROP CONSTRAINT "topics_pkey";--> statement-breakpoint
ALTER TABLE "webhook_deliveries" DROP CONSTRAINT "webhook_deliveries_pkey";--> statement-breakpoint
ALTER TABLE "webhook_event_queue" DROP CONSTRAINT "webhook_event_queue_pkey";--> statement-breakpoint
ALTER TABLE "webhook_events" DROP CONSTRAINT "webhook_events_pkey";--> statement-breakpoint
ALTER TABLE "webhook_subscriptions" DROP CONSTRAINT "webhook_subscriptions_pkey";
