import { Entity, PrimaryKey, Property } from '@mikro-orm/decorators/legacy';

/**
 * The first answer to a write sent with an `Idempotency-Key`, per tenant + client + key, kept 24 h.
 * `responseStatus` null means the first request is still being served (its holder has `lockedUntil`).
 * Written only with the conditional statements in idempotency.repository.ts, shared by every server process.
 */
@Entity({ tableName: 'idempotency_keys' })
export class IdempotencyKey {
  @PrimaryKey({ type: 'uuid' })
  tenantUuid!: string;

  @PrimaryKey({ length: 255 })
  clientId!: string;

  @PrimaryKey({ length: 255 })
  key!: string;

  /** SHA-256 of method, path and body: a retry must be the same request. */
  @Property({ length: 64 })
  fingerprint!: string;

  @Property({ type: 'integer', nullable: true })
  responseStatus?: number | null;

  @Property({ type: 'text', nullable: true })
  responseBody?: string | null;

  @Property({ type: 'text', nullable: true })
  responseContentType?: string | null;

  @Property({ type: 'text', nullable: true })
  responseLocation?: string | null;

  /** Until when the first request holds the key; past it (its process died) the key can be taken again. */
  @Property({ type: 'datetime', columnType: 'timestamptz(6)', nullable: true })
  lockedUntil?: Date | null;

  @Property({ type: 'datetime', columnType: 'timestamptz(6)' })
  createdAt!: Date;

  @Property({ type: 'datetime', columnType: 'timestamptz(6)', index: true })
  expiresAt!: Date;
}
