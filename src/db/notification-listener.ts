import pg from 'pg';
import type { Logger } from '../logger.js';

const RECONNECT_DELAY_MS = 1000;

export interface ChannelHandlers {
  /** A NOTIFY on the channel, with its payload. */
  onNotification(payload: string): void;
  /** LISTEN is in place (first time or again): notifications sent while disconnected are lost. */
  onListening(): void;
  /** The connection is gone: until `onListening`, nothing is heard. */
  onLost(): void;
}

export interface NotificationListener {
  close(): Promise<void>;
}

/**
 * LISTENs to one channel over a dedicated connection that reconnects by itself. PostgreSQL delivers
 * a NOTIFY when the sending transaction commits, to every listening process.
 */
export function listenToChannel(databaseUrl: string, channel: string, handlers: ChannelHandlers, logger: Logger): NotificationListener {
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
    current.on('notification', ({ payload }) => handlers.onNotification(payload ?? ''));
    current.on('error', (error) => {
      if (client !== current) return;
      handlers.onLost();
      logger.warn({ err: error, channel }, 'listener lost its connection; reconnecting');
      current.end().catch(() => undefined);
      reconnectLater();
    });
    try {
      await current.connect();
      await current.query(`listen ${current.escapeIdentifier(channel)}`);
      if (closed) await current.end();
      else handlers.onListening();
    } catch (error) {
      if (closed) return;
      logger.warn({ err: error, channel }, 'listener could not connect; retrying');
      current.end().catch(() => undefined);
      reconnectLater();
    }
  }

  void connect();
  return {
    async close() {
      closed = true;
      clearTimeout(retry);
      handlers.onLost();
      await client?.end().catch(() => undefined);
    },
  };
}
