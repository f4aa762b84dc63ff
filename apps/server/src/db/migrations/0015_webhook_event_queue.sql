CREATE TABLE "webhook_event_queue" (
	"event_id" text PRIMARY KEY NOT NULL,
	"tenant_id" text NOT NULL
);
