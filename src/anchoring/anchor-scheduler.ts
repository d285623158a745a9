import pg from 'pg';
import type { Orm } from '../db/orm.js';
import type { AnchoringConfig } from '../config.js';
import type { Logger } from '../logger.js';
import type { KeyWrapper } from '../security/key-envelope.js';
import { faultOf } from './anchor-chain.js';
import { type AnchorIdentity, resolveAnchorIdentity } from './anchor-key.js';
import { anchorBackoffSeconds, anchorFailures } from './anchor-metrics.js';
import { anchorPendingBatch } from './anchor-pending-batch.js';
import { type EmbeddedChain, startEmbeddedChain } from './embedded-chain.js';

/** Backoff after consecutive failures: the interval doubled each time, at most this. */
const MAX_BACKOFF_MS = 15 * 60_000;

export interface Anchoring {
  identity: AnchorIdentity;
  /** The JSON-RPC URL in use (the embedded chain's own when ANCHOR_RPC_URL=embedded). */
  rpcUrl: string;
  config: AnchoringConfig;
  /** Runs one anchoring now (tests, the benchmark); resolves with the certificates recorded as anchored. */
  runOnce(): Promise<number>;
  stop(): Promise<void>;
}

/**
 * One sender per key across processes: a session advisory lock on a connection of its own (not a
 * transaction, so a run may wait on the chain as long as it needs). A process that does not get it
 * skips the run; a process that dies releases it with its connection. Runs of one process (the
 * schedule, `runOnce`) also wait for each other: a session's advisory lock is re-entrant.
 */
class SenderLock {
  private client: pg.Client | undefined;
  private previous: Promise<unknown> = Promise.resolve();
  constructor(
    private readonly databaseUrl: string,
    private readonly key: string,
  ) {}

  run<T>(work: () => Promise<T>, otherwise: T): Promise<T> {
    const next = this.previous.then(() => this.runAlone(work, otherwise));
    this.previous = next.catch(() => undefined);
    return next;
  }

  private async runAlone<T>(work: () => Promise<T>, otherwise: T): Promise<T> {
    const client = await this.connect();
    const [{ locked }] = (await client.query<{ locked: boolean }>('select pg_try_advisory_lock(hashtextextended($1, 0)) as locked', [this.key])).rows;
    if (!locked) return otherwise;
    try {
      return await work();
    } finally {
      await client.query('select pg_advisory_unlock(hashtextextended($1, 0))', [this.key]).catch(() => this.close());
    }
  }

  private async connect(): Promise<pg.Client> {
    if (this.client) return this.client;
    const client = new pg.Client({ connectionString: this.databaseUrl });
    client.on('error', () => void this.close());
    await client.connect();
    this.client = client;
    return client;
  }

  async close(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => undefined);
  }
}

/**
 * Starts anchoring: resolves the key, starts the embedded chain when asked (its address funded), and
 * runs `anchorPendingBatch` every interval — after failures, at the interval doubled per consecutive
 * failure (at most 15 minutes), with a warning and `credentials_anchor_failures_total{reason}`.
 * Issuance never waits on any of this.
 */
export async function startAnchoring(
  orm: Orm,
  databaseUrl: string,
  config: AnchoringConfig,
  wrapper: KeyWrapper,
  publicBaseUrl: string,
  logger: Logger,
  { schedule = true } = {},
): Promise<Anchoring> {
  const identity = await resolveAnchorIdentity(orm.em.fork(), wrapper, config.privateKey);
  let chain: EmbeddedChain | undefined;
  if (config.rpcUrl === 'embedded') {
    chain = await startEmbeddedChain([identity.address]);
    logger.info({ rpcUrl: chain.url, address: identity.address }, 'embedded anchoring chain started (local, in memory)');
  } else {
    logger.info({ address: identity.address, network: config.network }, 'anchoring from this address; it must hold funds for one transaction per interval');
  }
  const rpcUrl = chain?.url ?? config.rpcUrl;
  const lock = new SenderLock(databaseUrl, `anchoring:${identity.address}`);
  const runOnce = () => lock.run(() => anchorPendingBatch({ em: orm.em.fork(), config, identity, rpcUrl, publicBaseUrl, logger }), 0);

  let failures = 0;
  let nextAttempt = 0;
  let running: Promise<unknown> = Promise.resolve();
  const attempt = async () => {
    try {
      await runOnce();
      failures = 0;
      nextAttempt = Date.now() + config.intervalMs;
      anchorBackoffSeconds.set(0);
    } catch (error) {
      const fault = faultOf(error);
      failures += 1;
      const backoffMs = Math.min(config.intervalMs * 2 ** (failures - 1), MAX_BACKOFF_MS);
      nextAttempt = Date.now() + backoffMs;
      anchorFailures.inc({ reason: fault.reason });
      anchorBackoffSeconds.set(backoffMs / 1000);
      logger.warn({ reason: fault.reason, failures, retryInSeconds: backoffMs / 1000, err: fault.message }, 'anchoring failed; the batch waits and is retried');
    }
  };
  // Checked every second at most; a run starts when the interval (or the backoff) has passed, never two at once.
  const tick = () => {
    if (Date.now() < nextAttempt) return;
    nextAttempt = Number.POSITIVE_INFINITY;
    running = running.then(attempt);
  };
  const timer = schedule ? setInterval(tick, Math.min(config.intervalMs, 1000)) : undefined;
  timer?.unref();
  if (schedule) tick();
  return {
    identity,
    rpcUrl,
    config,
    runOnce,
    async stop() {
      clearInterval(timer);
      await running;
      await lock.close();
      await chain?.close();
    },
  };
}
