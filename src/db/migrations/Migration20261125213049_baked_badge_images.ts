import { Migration } from '@mikro-orm/migrations';

export class Migration20261125213049_baked_badge_images extends Migration {
  override name = 'Migration20261125213049_baked_badge_images';

  override up(): void | Promise<void> {
    this.addSql(
      `create table "baked_badge_images" ("certificate_uuid" uuid not null, "baked" varchar(16) not null, "image_type" varchar(8) not null, "content_key" varchar(64) not null, "bytes" bytea not null, "created_at" timestamptz(6) not null, primary key ("certificate_uuid", "baked", "image_type"));`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "baked_badge_images" cascade;`);
  }
}
