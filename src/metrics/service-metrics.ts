import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { poolCounts, type Orm } from '../db/orm.js';
import type { RequestRecord } from '../http/request-record.js';
import { outboxBacklog } from '../notifications/notification.repository.js';
import { queueCountsByTask } from '../queue/queue.repository.js';
import { domainRegistry } from './domain-metrics.js';

/** Operation names are chosen by clients: past this many distinct ones, further names count as `other`. */
const MAX_OPERATION_NAMES = 200;

/** The metrics of one running service: its HTTP traffic, its database pool, the shared outbox and job queue. */
export interface ServiceMetrics {
  observeRequest(record: RequestRecord): void;
  /** Prometheus text exposition of these and the process's domain metrics. */
  scrape(): Promise<{ contentType: string; body: string }>;
}

export function createServiceMetrics(orm: Orm, poolMax: number): ServiceMetrics {
  const registry = new Registry();
  const requestSeconds = new Histogram({
    name: 'credentials_http_request_duration_seconds',
    help: 'HTTP requests by route template, method and status.',
    labelNames: ['route', 'method', 'status'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  const operations = new Counter({
    name: 'credentials_graphql_operations_total',
    help: 'GraphQL operations by operation name and outcome (error: the answer carried errors).',
    labelNames: ['operation', 'outcome'] as const,
    registers: [registry],
  });
  const knownOperations = new Set<string>();
  new Gauge({
    name: 'credentials_db_pool_connections',
    help: 'Database connections of this process by state (in_use, idle, waiting requests, max).',
    labelNames: ['state'] as const,
    registers: [registry],
    async collect() {
      const { totalCount, idleCount, waitingCount } = await poolCounts(orm);
      this.set({ state: 'in_use' }, totalCount - idleCount);
      this.set({ state: 'idle' }, idleCount);
      this.set({ state: 'waiting' }, waitingCount);
      this.set({ state: 'max' }, poolMax);
    },
  });
  const pending = new Gauge({ name: 'credentials_outbox_pending', help: 'Notifications waiting for delivery, all tenants.', registers: [registry] });
  const oldest = new Gauge({
    name: 'credentials_outbox_oldest_pending_age_seconds',
    help: 'Age of the oldest notification not yet delivered (0: none pending).',
    registers: [registry],
  });

  const queueGauge = (name: string, help: string) => new Gauge({ name, help, labelNames: ['task'] as const, registers: [registry] });
  const queueDepth = queueGauge('credentials_queue_jobs', 'Jobs of the queue waiting, scheduled or running, by task (all processes).');
  const queueFailed = queueGauge('credentials_queue_failed_jobs', 'Jobs of the queue given up after their last attempt, by task.');
  const queueOldest = queueGauge('credentials_queue_oldest_due_age_seconds', 'How long the oldest due job of a task has waited (0: none).');

  async function scrapeQueue(): Promise<void> {
    const rows = await queueCountsByTask(orm.em);
    for (const gauge of [queueDepth, queueFailed, queueOldest]) gauge.reset();
    for (const { task, failed, depth, oldest_seconds } of rows) {
      queueDepth.set({ task }, depth);
      queueFailed.set({ task }, failed);
      queueOldest.set({ task }, oldest_seconds);
    }
  }

  function operationLabel(name: string): string {
    if (knownOperations.has(name)) return name;
    if (knownOperations.size >= MAX_OPERATION_NAMES) return 'other';
    knownOperations.add(name);
    return name;
  }

  return {
    observeRequest(record) {
      requestSeconds.observe({ route: record.route, method: record.method, status: String(record.status) }, record.durationMs / 1000);
      if (record.operation) operations.inc({ operation: operationLabel(record.operation), outcome: record.errorCodes.length > 0 ? 'error' : 'success' });
    },
    async scrape() {
      const row = await outboxBacklog(orm.em);
      pending.set(row?.backlog ?? 0);
      oldest.set(row?.oldest_seconds ?? 0);
      await scrapeQueue();
      const merged = Registry.merge([registry, domainRegistry]);
      return { contentType: merged.contentType, body: await merged.metrics() };
    },
  };
}
