ALTER TABLE "messages" ALTER COLUMN "tool_calls" SET DATA TYPE json;--> statement-breakpoint
ALTER TABLE "messages" ALTER COLUMN "content_parts" SET DATA TYPE json;