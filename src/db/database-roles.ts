import pg from 'pg';
import { QUEUE_SCHEMA } from '../queue/queue-schema.js';

/**
 * The service's two PostgreSQL roles: the owner runs migrations and owns every object; the app role,
 * which the service's sessions use, may only read and write rows. Neither is a superuser.
 */
export interface RoleCredentials {
  user: string;
  password: string;
}

export interface ServiceRoles {
  owner: RoleCredentials;
  app: RoleCredentials;
}

/** `work` on a connection of its own to `url`, closed afterwards. */
export async function withClient<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** Creates both roles, or resets their passwords and attributes; run by an administrator (superuser or CREATEROLE). */
export async function ensureServiceRoles(adminDatabaseUrl: string, roles: ServiceRoles): Promise<void> {
  await withClient(adminDatabaseUrl, async (client) => {
    for (const { user, password } of [roles.owner, roles.app]) {
      const exists = (await client.query('select 1 from pg_roles where rolname = $1', [user])).rowCount! > 0;
      const attributes = `login nosuperuser nocreatedb nocreaterole password ${client.escapeLiteral(password)}`;
      await client.query(`${exists ? 'alter' : 'create'} role ${client.escapeIdentifier(user)} with ${attributes}`).catch((error: { code?: string }) => {
        if (error.code !== '42710') throw error; // created concurrently by another process
      });
    }
  });
}

/**
 * Run as the owner after migrating: the app role may use the schema and read and write the rows of
 * every table, including tables later migrations create (default privileges). Nothing else: no
 * CREATE, ALTER, DROP or TRUNCATE. LISTEN/NOTIFY and advisory locks need no grant.
 */
const APP_ROLE_GRANTS = (app: string) =>
  ['public', QUEUE_SCHEMA]
    .flatMap((schema) => [
      `grant usage on schema ${schema} to ${app}`,
      `grant select, insert, update, delete on all tables in schema ${schema} to ${app}`,
      `grant usage, select on all sequences in schema ${schema} to ${app}`,
      `alter default privileges in schema ${schema} grant select, insert, update, delete on tables to ${app}`,
      `alter default privileges in schema ${schema} grant usage, select on sequences to ${app}`,
    ])
    .concat(
      // graphile-worker keeps row-level security on its tables for roles other than their owner. Altered
      // in place when present: a policy dropped and created again would refuse a running process's jobs in between.
      QUEUE_PRIVATE_TABLES.map(
        (table) => `do $$ begin
        if exists (select 1 from pg_policies where schemaname = '${QUEUE_SCHEMA}' and tablename = '${table}' and policyname = 'app_role_rows')
        then alter policy app_role_rows on ${QUEUE_SCHEMA}.${table} to ${app};
        else create policy app_role_rows on ${QUEUE_SCHEMA}.${table} to ${app} using (true) with check (true);
        end if; end $$`,
      ),
    );

const QUEUE_PRIVATE_TABLES = ['_private_jobs', '_private_job_queues', '_private_tasks', '_private_known_crontabs'];

export async function grantAppRole(ownerDatabaseUrl: string, appRole: string): Promise<void> {
  await withClient(ownerDatabaseUrl, async (client) => {
    const { rows } = await client.query<{ user: string }>('select current_user as user');
    if (rows[0]!.user === appRole) return;
    for (const statement of APP_ROLE_GRANTS(client.escapeIdentifier(appRole))) await client.query(statement);
  });
}

/**
 * Embedded databases created before the role split belong to the bootstrap superuser: hands the
 * database, its public schema and every object in it to the owner role. Run as that superuser.
 */
export async function adoptObjects(adminDatabaseUrl: string, database: string, owner: string): Promise<void> {
  await withClient(adminDatabaseUrl, async (client) => {
    const role = client.escapeIdentifier(owner);
    await client.query(`alter database ${client.escapeIdentifier(database)} owner to ${role}`);
    await client.query(`alter schema public owner to ${role}`);
    const objects = await client.query<{ statement: string }>(ADOPTABLE, [owner]);
    for (const { statement } of objects.rows) await client.query(`${statement} owner to ${role}`);
  });
}

// Tables (their sequences follow), views, enum types and functions in public not yet owned by the owner.
const ADOPTABLE = `
  select format('alter %s %I.%I', case c.relkind when 'v' then 'view' when 'm' then 'materialized view' else 'table' end, n.nspname, c.relname) as statement
    from pg_class c join pg_namespace n on n.oid = c.relnamespace
   where n.nspname = 'public' and c.relkind in ('r', 'p', 'v', 'm') and pg_get_userbyid(c.relowner) <> $1
  union all
  select format('alter type %I.%I', n.nspname, t.typname)
    from pg_type t join pg_namespace n on n.oid = t.typnamespace
   where n.nspname = 'public' and t.typtype = 'e' and pg_get_userbyid(t.typowner) <> $1
  union all
  select format('alter function %s', p.oid::regprocedure)
    from pg_proc p join pg_namespace n on n.oid = p.pronamespace
   where n.nspname = 'public' and pg_get_userbyid(p.proowner) <> $1`;

/** The role a connection runs as, and whether it is a superuser (which the service should never be). */
export async function sessionRole(databaseUrl: string): Promise<{ user: string; superuser: boolean }> {
  return withClient(databaseUrl, async (client) => {
    const { rows } = await client.query<{ user: string; superuser: boolean }>(
      'select current_user as user, rolsuper as superuser from pg_roles where rolname = current_user',
    );
    return rows[0]!;
  });
}
