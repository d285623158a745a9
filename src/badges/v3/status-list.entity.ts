import { type Opt } from '@mikro-orm/core';
import { Entity, PrimaryKey, Property } from '@mikro-orm/decorators/legacy';

/**
 * An institution's revocation bitstring (every list of it, 131,072 entries each, end to end) and the
 * next free index. Written only with single SQL statements (open-badges-v3.repository.ts), so every process sees
 * one truth; `version` grows with every bit set.
 */
@Entity({ tableName: 'ob3_status_lists' })
export class StatusListRecord {
  @PrimaryKey({ type: 'uuid' })
  institutionUuid!: string;

  @Property({ type: 'integer' })
  nextIndex!: number;

  @Property({ type: 'blob' })
  bits!: Buffer;

  @Property({ type: 'integer' })
  version!: number;

  @Property({ type: 'datetime', columnType: 'timestamptz(6)' })
  updatedAt: Date & Opt = new Date();
}

/** The signed BitstringStatusListCredential of one list at one version: re-signed only after a change. */
@Entity({ tableName: 'ob3_status_list_credentials' })
export class SignedStatusList {
  @PrimaryKey({ type: 'uuid' })
  institutionUuid!: string;

  @PrimaryKey({ type: 'integer' })
  listNumber!: number;

  @Property({ type: 'integer' })
  version!: number;

  @Property({ type: 'json' })
  document!: Record<string, unknown>;
}
