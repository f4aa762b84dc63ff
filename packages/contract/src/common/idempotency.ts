/**
 * Writes whose first response the server does not keep for their `Idempotency-Key`: publishing a
 * message answers with the audience's whole history (up to 4 MiB), which a key would otherwise
 * hold for a day per request. The write is idempotent by itself: a retry with the same key runs
 * again, changes nothing more and answers the history as it is then (no 409 on reuse, no
 * `Idempotent-Replayed`). The key's format is still checked.
 */
export const IDEMPOTENCY_RESPONSE_NOT_KEPT: ReadonlySet<string> = new Set(['publishAudienceMessage']);
