import pg from 'pg';
import type { Logger } from '../logger.js';

/**
 * The channel the insert trigger declared on the Notification entity NOTIFYs.
 * PostgreSQL delivers it only when the inserting transaction commits, so a rolled-back
 * enqueue wakes nobody, and every server process listening hears about every commit.
 */
export const OUTBOX_CHANNEL = 'notification_outbox';

const RECONNECT_DELAY_MS = 1000;

export interface OutboxSignal {
  close(): Promise<void>;
}

/**
 * Calls `onSignal` on every commit that queued notifications, over one dedicated connection that
 * reconnects by itself. Also calls it after each (re)connect, since signals sent while
 * disconnected are lost; polling stays the safety net either way.
 */
export function listenForOutbox(databaseUrl: string, onSignal: () => void, logger: Logger): OutboxSignal {
  let client: pg.Client | undefined;
  let closed = false;
  let retry: NodeJS.Timeout | undefined;

  const reconnectLater = () => {
    if (closed || retry) return;
    retry = setTimeout(() => {
      retry = undefined;
      void connect();
    }, RECONNECT_DELAY_MS);
  };

  async function connect(): Promise<void> {
    const current = new pg.Client({ connectionString: databaseUrl });
    client = current;
    current.on('notification', () => onSignal());
    current.on('error', (error) => {
      if (client !== current) return;
      logger.warn({ err: error }, 'notification listener lost its connection; reconnecting');
      current.end().catch(() => undefined);
      reconnectLater();
    });
    try {
      await current.connect();
      await current.query(`listen ${OUTBOX_CHANNEL}`);
      if (closed) await current.end();
      else onSignal();
    } catch (error) {
      if (closed) return;
      logger.warn({ err: error }, 'notification listener could not connect; retrying');
      current.end().catch(() => undefined);
      reconnectLater();
    }
  }

  void connect();
  return {
    async close() {
      closed = true;
      clearTimeout(retry);
      await client?.end().catch(() => undefined);
    },
  };
}
