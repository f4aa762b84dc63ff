-- custom migration (drizzle-kit generate --custom): extensions for trigram search on asset names.
-- Both are trusted extensions on PostgreSQL 13+ (the database owner may create them) and are
-- bundled with PGlite (loaded in db/client.ts).
CREATE EXTENSION IF NOT EXISTS pg_trgm;--> statement-breakpoint
CREATE EXTENSION IF NOT EXISTS btree_gin;
