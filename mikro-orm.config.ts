import { ReflectMetadataProvider } from '@mikro-orm/decorators/legacy';
import { Migrator } from '@mikro-orm/migrations';
import { defineConfig } from '@mikro-orm/postgresql';
import 'reflect-metadata';
import { entities } from './src/db/entities.js';
import { migrations } from './src/db/migrations/index.js';
import { scopeFilters, TenantStamp } from './src/db/tenant-scope.js';

export interface OrmOptions {
  /** Called with every SQL statement; tests count statements with it. */
  onQuery?: (sql: string) => void;
  poolMax?: number;
}

/** The one ORM configuration: the server, the operator CLI, migrations and tests all build it here. */
export function ormConfig(clientUrl: string, options: OrmOptions = {}) {
  return defineConfig({
    clientUrl,
    entities: [...entities],
    metadataProvider: ReflectMetadataProvider,
    extensions: [Migrator],
    migrations: {
      tableName: 'schema_migrations',
      migrationsList: [...migrations],
      path: 'src/db/migrations',
      snapshot: false,
      silent: true,
    },
    // Legacy signing keys wait there for the service to seal them (src/certificates/legacy-keys.ts).
    schemaGenerator: { skipTables: ['signing_identities_unsealed'] },
    filters: scopeFilters([...entities]),
    subscribers: [new TenantStamp()],
    // Relations keep pointing at soft-deleted rows (an institution deleted after issuing still
    // names its certificates), so filters never reach across relations implicitly.
    autoJoinRefsForFilters: false,
    filtersOnRelations: false,
    forceUtcTimezone: true,
    // No relation here is bidirectional, so MikroORM's per-property setters (which propagate changes
    // to inverse sides) only cost time on every hydrated row; flush still diffs against snapshots.
    propagationOnPrototype: false,
    pool: { min: 0, max: options.poolMax ?? 20 },
    onQuery: options.onQuery ? (sql) => (options.onQuery!(sql), sql) : undefined,
    discovery: { warnWhenNoEntities: false },
  });
}
