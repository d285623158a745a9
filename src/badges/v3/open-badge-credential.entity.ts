import { type Opt } from '@mikro-orm/core';
import { Entity, Index, PrimaryKey, Property } from '@mikro-orm/decorators/legacy';

/**
 * The signed Open Badges 3.0 credential of one issued certificate, stored once at issuance and
 * served as stored (a signature covers its exact content). Keyed by the certificate, like the 2.0 salts.
 */
@Entity({ tableName: 'ob3_credentials' })
export class OpenBadgeCredentialRecord {
  @PrimaryKey({ type: 'uuid' })
  certificateUuid!: string;

  @Index()
  @Property({ type: 'uuid' })
  institutionUuid!: string;

  /** Position in the institution's revocation status list (status-list.ts). */
  @Property({ type: 'integer' })
  statusIndex!: number;

  @Property({ type: 'json' })
  document!: Record<string, unknown>;

  /**
   * The transcript as a CLR 2.0 ClrCredential (src/badges/clr): built at issuance from what the
   * transcript lists, signed at its first read (then stored signed); null for credentials issued before it.
   */
  @Property({ type: 'json', nullable: true, lazy: true })
  clrDocument?: Record<string, unknown> | null;

  @Property({ type: 'datetime', columnType: 'timestamptz(6)' })
  createdAt: Date & Opt = new Date();
}
