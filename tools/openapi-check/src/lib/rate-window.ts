/** Per-key window: above what the owner key sends before its window is spent on purpose. */
export const RATE_LIMIT = 1000;
/**
 * A window (from a key's first request) longer than the whole check: a 60 s window could end
 * between spending it and the 429 phase on a loaded machine, and the 429s would then be 200s.
 */
export const RATE_LIMIT_WINDOW_MS = 30 * 60_000;

/**
 * Spends the key's window directly at the server, so every later call with it is 429: eight at a
 * time (more would meet the tenant's share of database connections, another 429), on a request
 * the server refuses without reading anything (400: `limit=0`).
 */
export async function spendWindow(url: string, apiKey: string): Promise<void> {
  let left = RATE_LIMIT;
  const worker = async () => {
    for (; left > 0; left -= 1) {
      await (await fetch(`${url}/v0/topics?limit=0`, { headers: { 'x-api-key': apiKey } })).arrayBuffer();
    }
  };
  await Promise.all(Array.from({ length: 8 }, worker));
}
