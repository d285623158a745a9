import { Migration } from '@mikro-orm/migrations';

export class Migration20261123021729_badges extends Migration {
  override name = 'Migration20261123021729_badges';

  override up(): void | Promise<void> {
    this.addSql(
      `create table "badge_assertion_salts" ("certificate_uuid" uuid not null, "salt" varchar(64) not null, "created_at" timestamptz(6) not null, primary key ("certificate_uuid"));`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "badge_assertion_salts" cascade;`);
  }
}
