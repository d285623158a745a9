import type pg from 'pg';

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
