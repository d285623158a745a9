import { type Opt } from '@mikro-orm/core';
import { Entity, PrimaryKey, Property } from '@mikro-orm/decorators/legacy';

/**
 * A badge image with a certificate's assertion (Open Badges 2.0) or credential (3.0) baked in, kept so
 * public image requests are served from storage instead of a badge worker. One row per certificate,
 * kind and format; `contentKey` names exactly what was baked (baked-image-cache.ts), so a row baked
 * from anything else is never served. Read and written only with the statements in badge.repository.ts.
 */
@Entity({ tableName: 'baked_badge_images' })
export class BakedBadgeImage {
  @PrimaryKey({ type: 'uuid' })
  certificateUuid!: string;

  @PrimaryKey({ length: 16 })
  baked!: 'assertion' | 'credential';

  @PrimaryKey({ length: 8 })
  imageType!: 'png' | 'svg';

  @Property({ length: 64 })
  contentKey!: string;

  @Property({ type: 'blob', columnType: 'bytea' })
  bytes!: Buffer;

  @Property({ type: 'datetime', columnType: 'timestamptz(6)' })
  createdAt: Date & Opt = new Date();
}
