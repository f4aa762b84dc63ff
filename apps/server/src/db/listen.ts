import pg from 'pg';

/** How long a lost LISTEN connection waits before it reconnects. */
const RELISTEN_DELAY_MS = 1000;

/**
 * A LISTEN on its own connection (never a pooled one), re-established after errors; never
 * rejects: while no connection listens, the caller's poll is what finds new work.
 */
export async function listenPostgres(
  url: string,
  channel: string,
  onNotify: () => void,
): Promise<() => Promise<void>> {
  let stopped = false;
  let client: pg.Client | undefined;
  let retry: NodeJS.Timeout | undefined;
  const connect = async (): Promise<void> => {
    const next = new pg.Client({
      connectionString: url,
      connectionTimeoutMillis: 5000,
      keepAlive: true,
      keepAliveInitialDelayMillis: 10_000,
    });
    let gone = false;
    const lost = () => {
      if (gone) return;
      gone = true;
      if (client === next) client = undefined;
      next.removeAllListeners('notification');
      void next.end().catch(() => {});
      if (!stopped) retry = setTimeout(() => void connect(), RELISTEN_DELAY_MS).unref();
    };
    next.on('error', lost);
    next.on('end', lost);
    next.on('notification', (message) => {
      if (message.channel === channel) onNotify();
    });
    try {
      await next.connect();
      await next.query(`LISTEN ${pg.escapeIdentifier(channel)}`);
    } catch {
      lost();
      return;
    }
    if (stopped) {
      await next.end().catch(() => {});
      return;
    }
    client = next;
    // Whatever was committed while no connection listened: the caller looks once.
    onNotify();
  };
  await connect();
  return async () => {
    stopped = true;
    clearTimeout(retry);
    await client?.end().catch(() => {});
  };
}
