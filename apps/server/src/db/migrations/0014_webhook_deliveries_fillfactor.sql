-- custom migration (drizzle-kit generate --custom): hand-written, runs once; see docs/decisions (webhook delivery row versions)
-- Leave room on each page of the delivery attempts so that leasing an attempt (lease_token and
-- leased_until, in no index) is a heap-only update: no new entry in the table's five indexes.
-- Applies to pages written from now on; takes a SHARE UPDATE EXCLUSIVE lock (reads and writes go on).
ALTER TABLE "webhook_deliveries" SET (fillfactor = 70);
