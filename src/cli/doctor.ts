import { statfs } from 'node:fs/promises';
import nodemailer from 'nodemailer';
import pg from 'pg';
import { foreignKeyIds } from '../certificates/signing-keys.js';
import type { Config } from '../config.js';
import { resolveDatabase, type DatabaseTarget } from '../db/database.js';
import { openOrm, pendingMigrationCount } from '../db/orm.js';
import type { Logger } from '../logger.js';
import { resolveKeyWrapper } from '../security/key-encryption-key.js';

export interface Finding {
  check: string;
  ok: boolean;
  detail: string;
}

const EXPIRY_WARNING_DAYS = 30;
const LOW_DISK_BYTES = 1024 ** 3;

async function attempt(check: string, work: () => Promise<string>): Promise<Finding> {
  try {
    return { check, ok: true, detail: await work() };
  } catch (error) {
    return { check, ok: false, detail: error instanceof Error ? error.message : String(error) };
  }
}

async function query<T>(url: string, sql: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5000 });
  await client.connect();
  try {
    return (await client.query(sql)).rows as T[];
  } finally {
    await client.end();
  }
}

/** Certificates expiring soon or expired, per institution's current identity. */
async function signingIdentities(database: DatabaseTarget, config: Config, logger: Logger): Promise<string> {
  const rows = await query<{ institution_uuid: string; not_after: Date }>(
    database.url,
    'select institution_uuid, not_after from signing_identities where deleted_at is null',
  );
  const soon = new Date(Date.now() + EXPIRY_WARNING_DAYS * 86_400_000);
  const expired = rows.filter((row) => row.not_after <= new Date()).length;
  const expiring = rows.filter((row) => row.not_after > new Date() && row.not_after <= soon).length;
  const orm = await openOrm(database.url, { poolMax: 1 });
  try {
    const foreign = await foreignKeyIds(orm, await resolveKeyWrapper(config, logger));
    if (foreign.size > 0) throw new Error(`${[...foreign.values()].reduce((a, b) => a + b, 0)} stored key(s) are sealed under another KEY_ENCRYPTION_KEY`);
  } finally {
    await orm.close();
  }
  if (expired > 0) throw new Error(`${expired} of ${rows.length} institution certificate(s) have expired: install new ones with signing:install`);
  const warning = expiring > 0 ? `; ${expiring} expire within ${EXPIRY_WARNING_DAYS} days` : '';
  return `${rows.length} in use, all open under the key-encryption key${warning}`;
}

async function smtp(config: Config): Promise<string> {
  if (!config.smtpUrl) return `SMTP_URL not set: e-mails are written to ${config.dataDir}/outbox`;
  const transport = nodemailer.createTransport({ url: config.smtpUrl, connectionTimeout: 5000, greetingTimeout: 5000 });
  try {
    await transport.verify();
    return `${new URL(config.smtpUrl).host} accepts connections`;
  } finally {
    transport.close();
  }
}

async function disk(config: Config): Promise<string> {
  const stats = await statfs(config.dataDir).catch(() => statfs('.'));
  const free = stats.bavail * stats.bsize;
  const gib = (free / 1024 ** 3).toFixed(1);
  if (free < LOW_DISK_BYTES) throw new Error(`only ${gib} GiB free under ${config.dataDir}`);
  return `${gib} GiB free under ${config.dataDir}`;
}

/**
 * What an operator checks before (or after) a deployment, each check independent of the others'
 * outcome: the database is reachable, migrations are applied, signing keys open and are not
 * expiring, the mail server answers, the disk has room. Changes nothing (on a database never
 * migrated, MikroORM creates its empty bookkeeping table when asked what is pending).
 */
export async function diagnose(config: Config, logger: Logger): Promise<Finding[]> {
  const findings: Finding[] = [{ check: 'configuration', ok: true, detail: `NODE_ENV=${config.env}, PUBLIC_BASE_URL=${config.publicBaseUrl}` }];
  let database: DatabaseTarget | undefined;
  findings.push(
    await attempt('database', async () => {
      database = await resolveDatabase(config, logger, { initialise: false });
      const [row] = await query<{ version: string }>(database.url, "select current_setting('server_version') as version");
      return `PostgreSQL ${row!.version} (${database.source})`;
    }),
  );
  try {
    if (database) {
      const target = database;
      findings.push(
        await attempt('migrations', async () => {
          const orm = await openOrm(target.migrationUrl, { poolMax: 1, migrationsOnly: true });
          try {
            const pending = await pendingMigrationCount(orm);
            if (pending > 0) throw new Error(`${pending} pending: run \`npm run cli -- migrate\` (or start one server)`);
            return 'all applied';
          } finally {
            await orm.close();
          }
        }),
      );
      findings.push(await attempt('signing identities', () => signingIdentities(target, config, logger)));
    }
    findings.push(await attempt('smtp', () => smtp(config)));
    findings.push(await attempt('disk', () => disk(config)));
  } finally {
    await database?.release();
  }
  return findings;
}
