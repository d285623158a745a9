import type { Orm } from '../db/orm.js';
import type { AttemptRecord } from './webhook-delivery.entity.js';
import { type DisablingPolicy, type FailureOutcome, recordFailure, type WebhookRetryPolicy } from './webhook-failure.js';

/** A delivery a worker has leased, with what sending it needs. */
export interface ClaimedDelivery {
  uuid: string;
  messageUuid: string;
  eventType: string;
  body: string;
  url: string;
  endpointUuid: string;
  /** The endpoint's signing secret, sealed (webhook-secrets.ts opens it). */
  sealedSecret: Buffer;
  attemptCount: number;
}

/** 12 attempts: waits of 1, 2, 4 … 256 min, then 8 h twice — the last attempt about 24.5 h after the first. */
export const DEFAULT_WEBHOOK_RETRY_POLICY: WebhookRetryPolicy = { maxAttempts: 12, baseBackoffSeconds: 60, maxBackoffSeconds: 8 * 3600 };

export interface DeliverySlots {
  /** Deliveries in flight to one endpoint at most. */
  endpointConcurrency: number;
  /** Deliveries in flight for one tenant at most. */
  tenantConcurrency: number;
}

const MAX_ERROR_LENGTH = 500;

/*
 * A delivery is claimable when due, not leased, and no earlier one about the same record to the same
 * endpoint is pending (in flight or backing off): a record's events arrive in commit order. Per
 * endpoint only its `endpointConcurrency` oldest claimable ones are looked at (an index range), then
 * ranked after what is already in flight at the endpoint and the tenant.
 */
const CLAIM = `with in_flight as (
    select endpoint_uuid, tenant_uuid, count(*)::int as n from webhook_deliveries
    where status = 'pending' and locked_until >= now()
    group by endpoint_uuid, tenant_uuid
  ), tenant_in_flight as (
    select tenant_uuid, sum(n)::int as n from in_flight group by tenant_uuid
  ), oldest as (
    select c.uuid, c.enqueued_at, e.uuid as endpoint_uuid, e.tenant_uuid
    from webhook_endpoints e
    cross join lateral (
      select d.uuid, d.enqueued_at from webhook_deliveries d
      where d.endpoint_uuid = e.uuid and d.status = 'pending' and d.next_attempt_at <= now()
        and (d.locked_until is null or d.locked_until < now())
        and not exists (
          select 1 from webhook_deliveries earlier
          where earlier.endpoint_uuid = d.endpoint_uuid and earlier.subject_uuid = d.subject_uuid and earlier.status = 'pending'
            and (earlier.enqueued_at, earlier.uuid) < (d.enqueued_at, d.uuid))
      order by d.enqueued_at, d.uuid
      limit ?
    ) c
    where e.disabled_at is null and e.deleted_at is null and e.sealed_signing_secret is not null
  ), endpoint_ranked as (
    select o.*, coalesce(f.n, 0) + row_number() over (partition by o.endpoint_uuid order by o.enqueued_at, o.uuid) as endpoint_slot
    from oldest o left join in_flight f on f.endpoint_uuid = o.endpoint_uuid
  ), tenant_ranked as (
    select r.uuid, r.enqueued_at, coalesce(t.n, 0) + row_number() over (partition by r.tenant_uuid order by r.enqueued_at, r.uuid) as tenant_slot
    from endpoint_ranked r left join tenant_in_flight t on t.tenant_uuid = r.tenant_uuid
    where r.endpoint_slot <= ?
  ), chosen as (
    select uuid from tenant_ranked where tenant_slot <= ? order by tenant_slot, enqueued_at, uuid limit ?
  )
  update webhook_deliveries d set locked_until = now() + make_interval(secs => ?)
  from chosen, webhook_endpoints e, webhook_messages m
  where d.uuid = chosen.uuid and e.uuid = d.endpoint_uuid and m.uuid = d.message_uuid
  returning d.uuid, d.message_uuid, d.event_type, d.attempt_count, m.body, e.url, e.uuid as endpoint_uuid, e.sealed_signing_secret`;

/**
 * The webhook workers' view of the deliveries across every tenant (raw SQL, as the e-mail
 * DeliveryQueue): claim under a lease, record each attempt, back off, give up and disable.
 */
export class WebhookQueue {
  constructor(
    private readonly orm: Orm,
    readonly policy: WebhookRetryPolicy = DEFAULT_WEBHOOK_RETRY_POLICY,
    readonly slots: DeliverySlots = { endpointConcurrency: 2, tenantConcurrency: 8 },
    readonly disabling: DisablingPolicy = { disableAfterHours: 120 },
  ) {}

  /**
   * Leases up to `limit` due deliveries, fairly: an endpoint never has more than `endpointConcurrency`
   * deliveries in flight nor a tenant more than `tenantConcurrency` (across every process), and the
   * tenants with the fewest in flight go first, each with its oldest due deliveries. So a dead
   * endpoint holds its own slots only, and a tenant's dead endpoints hold at most the tenant's share.
   * Claims of all processes are serialised by a transaction-level advisory lock: the claim reads the
   * leases every earlier claim committed, so the limits hold exactly.
   */
  async claim(limit: number, leaseMs: number): Promise<ClaimedDelivery[]> {
    const { endpointConcurrency, tenantConcurrency } = this.slots;
    const rows = await this.orm.em.fork().transactional(async (em) => {
      await em.execute(`select pg_advisory_xact_lock(hashtext('webhook_deliveries claim'))`);
      return em.execute<Record<string, unknown>[]>(CLAIM, [endpointConcurrency, endpointConcurrency, tenantConcurrency, limit, leaseMs / 1000]);
    });
    return rows.map((row) => ({
      uuid: String(row.uuid),
      messageUuid: String(row.message_uuid),
      eventType: String(row.event_type),
      body: String(row.body),
      url: String(row.url),
      endpointUuid: String(row.endpoint_uuid),
      sealedSecret: row.sealed_signing_secret as Buffer,
      attemptCount: Number(row.attempt_count),
    }));
  }

  /** Final for the delivery; a success also ends its endpoint's failing streak. */
  async markDelivered(uuid: string, attempt: AttemptRecord): Promise<void> {
    await this.orm.em.fork().execute(
      `with delivered as (
         update webhook_deliveries
         set status = 'delivered', delivered_at = now(), attempt_count = attempt_count + 1, last_response_status = ?, last_error = null,
             attempt_log = attempt_log || ?::jsonb, locked_until = null, updated_at = now()
         where uuid = ? and status = 'pending'
         returning endpoint_uuid)
       update webhook_endpoints e set failing_since = null from delivered where e.uuid = delivered.endpoint_uuid and e.failing_since is not null`,
      [attempt.status, JSON.stringify([attempt]), uuid],
      'run',
    );
  }

  /**
   * Logs the failed attempt and schedules the next (or gives the delivery up as `failed`); an
   * endpoint failing every attempt for `disableAfterHours` is disabled, with a notice e-mail, in the
   * same transaction (webhook-failure.ts).
   */
  markFailed(uuid: string, attempt: AttemptRecord): Promise<FailureOutcome> {
    return recordFailure(this.orm, uuid, { ...attempt, error: attempt.error?.slice(0, MAX_ERROR_LENGTH) ?? null }, this.policy, this.disabling);
  }

  /** Hands claimed but unsent deliveries back at once (used when stopping). */
  async release(uuids: string[]): Promise<void> {
    if (uuids.length === 0) return;
    await this.orm.em
      .fork()
      .execute(`update webhook_deliveries set locked_until = null where uuid in (${uuids.map(() => '?').join(', ')}) and status = 'pending'`, uuids, 'run');
  }
}
