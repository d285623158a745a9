import type { Orm } from '../db/orm.js';

/** Who sent a key: keys of different tenants or clients never meet. */
export interface KeyOwner {
  tenantUuid: string;
  clientId: string;
  key: string;
}

export interface StoredResponse {
  status: number;
  body: string;
  contentType: string | null;
  location: string | null;
}

export type Claim = { outcome: 'claimed' } | { outcome: 'replay'; response: StoredResponse } | { outcome: 'in_use' } | { outcome: 'mismatch' };

export const KEY_TTL_SECONDS = 24 * 60 * 60;

// One statement decides who serves a key, atomically across processes: a new key is inserted; an
// expired one, or one whose holder died (lease run out without an answer), is taken over. Anything
// else returns no row and the caller reads what is there.
const CLAIM = `
  insert into idempotency_keys (tenant_uuid, client_id, key, fingerprint, locked_until, created_at, expires_at)
  values (?, ?, ?, ?, now() + make_interval(secs => ?), now(), now() + make_interval(secs => ?))
  on conflict (tenant_uuid, client_id, key) do update set
    fingerprint = excluded.fingerprint, locked_until = excluded.locked_until, created_at = excluded.created_at,
    expires_at = excluded.expires_at, response_status = null, response_body = null, response_content_type = null, response_location = null
  where idempotency_keys.expires_at <= now()
     or (idempotency_keys.response_status is null and idempotency_keys.locked_until < now())
  returning key`;

const READ = `select fingerprint, response_status, response_body, response_content_type, response_location
  from idempotency_keys where tenant_uuid = ? and client_id = ? and key = ?`;

const COMPLETE = `update idempotency_keys
  set response_status = ?, response_body = ?, response_content_type = ?, response_location = ?, locked_until = null
  where tenant_uuid = ? and client_id = ? and key = ? and fingerprint = ?`;

const RELEASE = `delete from idempotency_keys where tenant_uuid = ? and client_id = ? and key = ? and fingerprint = ? and response_status is null`;

const SWEEP = `delete from idempotency_keys where expires_at <= now()`;

interface KeyRow {
  fingerprint: string;
  response_status: number | null;
  response_body: string | null;
  response_content_type: string | null;
  response_location: string | null;
}

/** Idempotency keys in PostgreSQL, so every server process sees the same first answer. */
export class IdempotencyStore {
  constructor(
    private readonly orm: Orm,
    /** How long the first request may hold a key before it counts as abandoned (longer than any request). */
    private readonly leaseSeconds = 300,
  ) {}

  /** Takes the key for this request, or says why not: its stored answer, still in use, or another request's key. */
  async claim(owner: KeyOwner, fingerprint: string): Promise<Claim> {
    const values = [owner.tenantUuid, owner.clientId, owner.key];
    const claimed = await this.execute<{ key: string }>(CLAIM, [...values, fingerprint, this.leaseSeconds, KEY_TTL_SECONDS]);
    if (claimed.length > 0) return { outcome: 'claimed' };
    const [row] = await this.execute<KeyRow>(READ, values);
    if (!row) return this.claim(owner, fingerprint); // swept between the two statements
    if (row.fingerprint !== fingerprint) return { outcome: 'mismatch' };
    if (row.response_status === null) return { outcome: 'in_use' };
    return {
      outcome: 'replay',
      response: { status: row.response_status, body: row.response_body ?? '', contentType: row.response_content_type, location: row.response_location },
    };
  }

  async complete(owner: KeyOwner, fingerprint: string, response: StoredResponse): Promise<void> {
    const { status, body, contentType, location } = response;
    await this.execute(COMPLETE, [status, body, contentType, location, owner.tenantUuid, owner.clientId, owner.key, fingerprint], 'run');
  }

  /** Forgets a key whose request ended without an answer worth repeating (a server error): the retry does the work. */
  async release(owner: KeyOwner, fingerprint: string): Promise<void> {
    await this.execute(RELEASE, [owner.tenantUuid, owner.clientId, owner.key, fingerprint], 'run');
  }

  /** Deletes keys past their 24 hours (the periodic sweeper). */
  async sweep(): Promise<number> {
    const result = await this.orm.em.getConnection().execute(SWEEP, [], 'run');
    return (result as { affectedRows?: number }).affectedRows ?? 0;
  }

  private execute<T>(sql: string, params: unknown[], method: 'all' | 'run' = 'all'): Promise<T[]> {
    return this.orm.em.getConnection().execute<T[]>(sql, params, method);
  }
}
