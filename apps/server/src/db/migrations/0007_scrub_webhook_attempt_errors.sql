-- custom migration (drizzle-kit generate --custom): hand-written, runs once; keep in step with src/webhooks/attempt-errors.ts
-- Attempts recorded before the fixed error texts kept the raw error (resolved addresses, ports,
-- resolver and OpenSSL messages), which tenants read in the delivery log: map each to its category.
UPDATE "webhook_deliveries" SET "error" = CASE
  WHEN "error" LIKE 'ERR_WEBHOOK_SSRF %has no address%' THEN 'DNS lookup failed for the host'
  WHEN "error" LIKE 'ERR_WEBHOOK_SSRF %' THEN 'The host resolves to a private, loopback or link-local address; refused'
  WHEN "error" ~ '^(ENOTFOUND|EAI_[A-Z]+|ENODATA) ' THEN 'DNS lookup failed for the host'
  WHEN "error" LIKE 'ECONNREFUSED %' THEN 'Connection refused'
  WHEN "error" ~ '^(EHOSTUNREACH|ENETUNREACH|EHOSTDOWN|ENETDOWN) ' THEN 'The host is unreachable'
  WHEN "error" ~ '^(UND_ERR_CONNECT_TIMEOUT|ETIMEDOUT) ' THEN 'Timed out connecting to the host'
  WHEN "error" ~ '^(ECONNRESET|EPIPE|UND_ERR_SOCKET|UND_ERR_CLOSED) ' THEN 'The receiver closed the connection before answering'
  WHEN "error" ~ '^[A-Z_]*(CERT|SIGNATURE)[A-Z_]* ' THEN 'TLS certificate not accepted (expired, untrusted or for another host)'
  WHEN "error" ~ '^(ERR_SSL_[A-Z_]+|ERR_TLS_[A-Z_]+|EPROTO) ' THEN 'TLS handshake failed'
  WHEN "error" ~ '^(HPE_[A-Z_]+|UND_ERR_INFO|UND_ERR_RES_CONTENT_LENGTH_MISMATCH) ' THEN 'The receiver sent an invalid HTTP response'
  ELSE 'The request failed before the receiver answered'
END
WHERE "error" IS NOT NULL
  AND "error" NOT LIKE 'Receiver answered HTTP %'
  AND "error" NOT LIKE 'Not sent: %'
  AND "error" !~ '^Timed out after [0-9]+ ms$'
  AND "error" NOT IN (
    'DNS lookup failed for the host',
    'The host resolves to a private, loopback or link-local address; refused',
    'Connection refused',
    'The host is unreachable',
    'Timed out connecting to the host',
    'The receiver closed the connection before answering',
    'TLS certificate not accepted (expired, untrusted or for another host)',
    'TLS handshake failed',
    'The receiver sent an invalid HTTP response',
    'The request failed before the receiver answered'
  );
