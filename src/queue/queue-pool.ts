import pg from 'pg';
import type { Logger } from '../logger.js';

/**
 * The job queue's own connection pool: a connection PostgreSQL ends (its shutdown, a restart, a network
 * cut) is logged, not fatal. graphile-worker 0.18 can release its listening connection twice when that
 * connection dies (its error handler and its reconnect both release it); pg-pool throws on the second
 * release from inside a promise nobody awaits, which would end the process as an unhandled rejection.
 * Here a second release of the same checkout is logged and ignored.
 */
export function createQueuePool(connectionString: string, max: number, logger: Logger): pg.Pool {
  const pool = new ForgivingPool({ connectionString, max });
  pool.logger = logger;
  const closed = (error: Error) => logger.warn({ err: error }, 'job queue: a database connection was closed');
  pool.on('error', closed);
  pool.on('connect', (client) => client.on('error', closed));
  return pool;
}

type ConnectCallback = (error: Error | undefined, client: pg.PoolClient | undefined, release: (error?: Error | boolean) => void) => void;

class ForgivingPool extends pg.Pool {
  logger?: Logger;

  override connect(): Promise<pg.PoolClient>;
  override connect(callback: ConnectCallback): void;
  override connect(callback?: ConnectCallback): Promise<pg.PoolClient> | void {
    if (!callback) return super.connect().then((client) => this.releasedOnce(client));
    super.connect((error, client, release) => callback(error, client && this.releasedOnce(client), client ? client.release : release));
  }

  private releasedOnce(client: pg.PoolClient): pg.PoolClient {
    const release = client.release;
    let released = false;
    client.release = (error?: Error | boolean) => {
      if (released) {
        this.logger?.warn('job queue: a connection was released twice; the second release is ignored');
        return;
      }
      released = true;
      release(error);
    };
    return client;
  }
}
