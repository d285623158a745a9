import { Entity, PrimaryKey, Property } from '@mikro-orm/decorators/legacy';

/**
 * One fixed window of one rate limit (`api:client:…`, `token:fail:…`), shared by every server process
 * through the database. Written only with the atomic upsert in rate-limit.repository.ts; swept after it resets.
 */
@Entity({ tableName: 'rate_limit_buckets' })
export class RateLimitBucket {
  @PrimaryKey({ length: 255 })
  key!: string;

  @Property({ type: 'integer' })
  hits!: number;

  @Property({ type: 'datetime', columnType: 'timestamptz(6)', index: true })
  resetAt!: Date;
}
