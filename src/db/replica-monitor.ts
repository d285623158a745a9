import { performance } from 'node:perf_hooks';
import type { PostgreSqlConnection } from '@mikro-orm/postgresql';
import { CompiledQuery } from 'kysely';
import type { Logger } from '../logger.js';
import type { Orm } from './orm.js';
import type { ServicePostgreSqlDriver } from './service-driver.js';

export const REPLICA_CHECK_MS = 1000;

/** Where the reads that may use the replica go now, and why. */
export type ReplicaState = 'fresh' | 'lagging' | 'unreachable' | 'not a standby';

export interface ReplicaMonitor {
  state(): ReplicaState;
  stop(): Promise<void>;
}

/** A WAL position of the primary and when it was read. */
interface Sample {
  at: number;
  position: bigint;
}

const PRIMARY_POSITION = `select pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0')::text as position`;
const REPLAYED_POSITION = `select pg_is_in_recovery() as standby, pg_wal_lsn_diff(pg_last_wal_replay_lsn(), '0/0')::text as position`;

/**
 * How far behind the primary the replica is, in seconds, from the primary's WAL positions sampled
 * over time: the replica has replayed everything the primary had written at the newest sample not
 * beyond its replayed position, so it lags by at most the time since then. Unlike
 * `now() - pg_last_xact_replay_timestamp()`, an idle primary does not make a caught-up replica look late.
 */
export function lagSeconds(samples: readonly Sample[], replayed: bigint, now: number): number {
  for (let index = samples.length - 1; index >= 0; index--)
    if (samples[index]!.position <= replayed) return index === samples.length - 1 ? 0 : (now - samples[index]!.at) / 1000;
  return Number.POSITIVE_INFINITY;
}

async function position(connection: PostgreSqlConnection, sql: string): Promise<{ standby?: boolean; position: string | null }> {
  // The connection's own Kysely client: not the ORM's query hook, so tests' statement counts stay the service's.
  const result = await connection.getClient().executeQuery<{ standby?: boolean; position: string | null }>(CompiledQuery.raw(sql, []));
  return result.rows[0]!;
}

/**
 * Checks the replica against the primary every `intervalMs` (never per request) and sends the public
 * reads (`acrossTenants`) to it only while it is reachable, a standby, and at most `maxLagSeconds` behind.
 * Until the first check says so, they go to the primary.
 */
export function monitorReplica(orm: Orm, { maxLagSeconds }: { maxLagSeconds: number }, logger: Logger, intervalMs = REPLICA_CHECK_MS): ReplicaMonitor {
  const driver = orm.driver as unknown as ServicePostgreSqlDriver;
  const replica = driver.replica;
  if (!replica) throw new Error('monitorReplica needs an ORM opened with a replica');
  let samples: Sample[] = [];
  let state: ReplicaState = 'unreachable';
  let reported: ReplicaState | undefined;

  const settle = (next: ReplicaState, details: Record<string, unknown> = {}) => {
    state = next;
    driver.readFromReplica(next === 'fresh');
    if (next === reported) return;
    reported = next;
    if (next === 'fresh') logger.info(details, 'public reads go to the read replica');
    else logger.warn({ ...details, replica: next, maxLagSeconds }, 'public reads go to the primary: the read replica is not usable');
  };

  const check = async () => {
    const now = performance.now();
    const primary = await position(driver.getConnection('write'), PRIMARY_POSITION);
    samples.push({ at: now, position: BigInt(primary.position!) });
    samples = samples.filter(({ at }) => now - at <= maxLagSeconds * 1000 + 2 * intervalMs);
    let replayed: { standby?: boolean; position: string | null };
    try {
      replayed = await position(replica, REPLAYED_POSITION);
    } catch (error) {
      return settle('unreachable', { err: error });
    }
    if (!replayed.standby || replayed.position === null) return settle('not a standby');
    const lag = lagSeconds(samples, BigInt(replayed.position), performance.now());
    settle(lag <= maxLagSeconds ? 'fresh' : 'lagging', { lagSeconds: Number.isFinite(lag) ? lag : `more than ${maxLagSeconds}` });
  };

  let running: Promise<void> | undefined;
  const tick = () => {
    // The primary unreachable is the readiness check's business; the replica stays out of use meanwhile.
    running ??= check()
      .catch((error: unknown) => settle('unreachable', { err: error }))
      .finally(() => (running = undefined));
  };
  const timer = setInterval(tick, intervalMs);
  timer.unref();
  tick();
  return {
    state: () => state,
    async stop() {
      clearInterval(timer);
      await running;
      driver.readFromReplica(false);
    },
  };
}
