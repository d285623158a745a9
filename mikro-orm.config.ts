import { ReflectMetadataProvider } from '@mikro-orm/decorators/legacy';
import { Migrator } from '@mikro-orm/migrations';
import { defineConfig } from '@mikro-orm/postgresql';
import 'reflect-metadata';
import { entities } from './src/entities.js';
import { releaseDeadClients, ServicePostgreSqlDriver } from './src/db/service-driver.js';
import { migrations } from './src/db/migrations/index.js';
import { scopeFilters, TenantStamp } from './src/db/tenant-scope.js';

export interface OrmOptions {
  /** Called with every SQL statement; tests count statements with it. */
  onQuery?: (sql: string, params?: readonly unknown[]) => void;
  poolMax?: number;
  /** The server's limits (src/config.ts `timeouts`); without them (CLI, migrations, tests' own ORMs) nothing times out. */
  timeouts?: { poolAcquireMs: number; statementMs: number; idleInTransactionMs: number };
  /** A streaming replica (DATABASE_REPLICA_URL): reads that ask for it go there while it is fresh (src/db/replica-monitor.ts). */
  replicaUrl?: string;
  /** DATABASE_POOLER=transaction: nothing session-scoped, not even the timeouts of the startup packet (PgBouncer refuses them). */
  pooler?: 'transaction';
  /**
   * Migrations only (the owner's connection at start-up): no entities, so no entity discovery. Migrations
   * are SQL and the migrations table needs no entity; discovering every entity again cost a service start
   * about as much CPU as the service's own ORM.
   */
  migrationsOnly?: boolean;
}

/**
 * MikroORM 7 maps only `pool.min/max/idleTimeoutMillis` onto node-postgres' Pool; everything else
 * reaches the Pool (and each Client it opens) through `driverOptions`, merged over those.
 */
function driverOptions(timeouts: OrmOptions['timeouts'], pooler: OrmOptions['pooler']) {
  const always = { onPoolCreated: releaseDeadClients };
  if (!timeouts) return always;
  // Behind a transaction pooler the session defaults are the role's (ALTER ROLE … SET, docs/deploy.md).
  if (pooler === 'transaction') return { ...always, connectionTimeoutMillis: timeouts.poolAcquireMs };
  return {
    ...always,
    connectionTimeoutMillis: timeouts.poolAcquireMs,
    // Sent in the startup packet: the session's defaults, which `reset all` returns to.
    statement_timeout: timeouts.statementMs,
    idle_in_transaction_session_timeout: timeouts.idleInTransactionMs,
  };
}

/** The one ORM configuration: the server, the operator CLI, migrations and tests all build it here. */
export function ormConfig(clientUrl: string, options: OrmOptions = {}) {
  return defineConfig({
    driver: ServicePostgreSqlDriver,
    clientUrl,
    entities: options.migrationsOnly ? [] : [...entities],
    metadataProvider: ReflectMetadataProvider,
    extensions: [Migrator],
    migrations: {
      tableName: 'schema_migrations',
      migrationsList: [...migrations],
      path: 'src/db/migrations',
      snapshot: false,
      silent: true,
    },
    // Legacy signing keys and webhook secrets wait there for the service to seal them (src/certificates/legacy-keys.ts,
    // src/webhooks/webhook-secrets.ts);
    // triggers and functions keep the live row counts (src/db/live-counts.ts): no entity declares them;
    // the job queue's schema is graphile-worker's own (src/queue/queue-schema.ts installs and upgrades it).
    schemaGenerator: {
      skipTables: ['signing_identities_unsealed', 'webhook_secrets_unsealed', 'live_row_counts', /^_private_/, 'migrations'],
      skipViews: ['jobs'],
      ignoreTriggers: true,
      ignoreRoutines: true,
    },
    filters: options.migrationsOnly ? {} : scopeFilters([...entities]),
    subscribers: options.migrationsOnly ? [] : [new TenantStamp()],
    // Relations keep pointing at soft-deleted rows (an institution deleted after issuing still
    // names its certificates), so filters never reach across relations implicitly.
    autoJoinRefsForFilters: false,
    filtersOnRelations: false,
    forceUtcTimezone: true,
    // No relation here is bidirectional, so MikroORM's per-property setters (which propagate changes
    // to inverse sides) only cost time on every hydrated row; flush still diffs against snapshots.
    propagationOnPrototype: false,
    pool: { min: 0, max: options.poolMax ?? 20 },
    driverOptions: driverOptions(options.timeouts, options.pooler),
    // Only reads that ask for the replica (db/tenant-scope.ts `acrossTenants`) go there: the rest read their own writes.
    replicas: options.replicaUrl ? [{ name: 'replica', clientUrl: options.replicaUrl }] : [],
    preferReadReplicas: false,
    onQuery: options.onQuery ? (sql, params) => (options.onQuery!(sql, params), sql) : undefined,
    discovery: { warnWhenNoEntities: false },
  });
}
