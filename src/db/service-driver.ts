import type pg from 'pg';
import { PostgreSqlDriver, PostgreSqlPlatform, type PostgreSqlConnection } from '@mikro-orm/postgresql';
import type { Configuration, ConnectionType } from '@mikro-orm/core';
import { parseIsoTimestamp } from '../timestamps.js';

/** PostgreSQL as MikroORM knows it, but reading the ISO timestamps of JSON rows by their digits. */
class ServicePlatform extends PostgreSqlPlatform {
  override parseDate(value: string | number): Date {
    return (typeof value === 'string' ? parseIsoTimestamp(value) : undefined) ?? super.parseDate(value);
  }
}

/**
 * MikroORM's PostgreSQL driver on the platform above (the driver is the one place a platform is
 * chosen), and where reads meet the replica: only reads that ask for it (`acrossTenants`, db/tenant-scope.ts)
 * go there, and only while the replica monitor (db/replica-monitor.ts) finds it fresh; everything else,
 * and every statement in a transaction, goes to the primary.
 */
export class ServicePostgreSqlDriver extends PostgreSqlDriver {
  #replicaFresh = false;
  /** Whether the page statement may be a named prepared statement (db/sql-rows.ts); off behind a transaction-mode pooler. */
  namedStatements = true;

  constructor(config: Configuration) {
    super(config);
    // PostgreSqlDriver's constructor fixes its platform; the configuration reads it only after this returns.
    (this as unknown as { platform: PostgreSqlPlatform }).platform = new ServicePlatform();
  }

  override getConnection(type: ConnectionType = 'write'): PostgreSqlConnection {
    return type === 'read' && !this.#replicaFresh ? this.connection : super.getConnection(type);
  }

  /** The replica's own connection (DATABASE_REPLICA_URL), fresh or not: what the monitor checks. */
  get replica(): PostgreSqlConnection | undefined {
    return this.replicas[0];
  }

  /** Sends the reads that ask for the replica there (`true`) or to the primary. */
  readFromReplica(fresh: boolean): void {
    this.#replicaFresh = fresh && this.replicas.length > 0;
  }
}

/**
 * kysely gives a transaction's connection back to the pool only after a successful ROLLBACK, so a
 * transaction whose session the server ended (idle_in_transaction_session_timeout, a terminated
 * backend) would keep its pool slot for good, and the pool could never drain. A checked-out client
 * whose connection ends is released here with an error, which makes the pool discard it; whoever
 * still holds it gets its errors, and its later release is a no-op.
 */
export function releaseDeadClients(pool: pg.Pool): void {
  const checkedOut = new Set<pg.PoolClient>();
  pool.on('acquire', (client) => checkedOut.add(client));
  pool.on('release', (_error, client) => checkedOut.delete(client));
  pool.on('remove', (client) => checkedOut.delete(client as pg.PoolClient));
  pool.on('connect', (client) => {
    client.once('end', () => {
      const held = client as pg.PoolClient;
      if (!checkedOut.has(held)) return;
      checkedOut.delete(held);
      held.release(new Error('the database connection ended while checked out'));
      held.release = () => undefined;
    });
  });
}
