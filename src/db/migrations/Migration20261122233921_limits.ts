import { Migration } from '@mikro-orm/migrations';

export class Migration20261122233921_limits extends Migration {
  override name = 'Migration20261122233921_limits';

  override up(): void | Promise<void> {
    this.addSql(
      `create table "rate_limit_buckets" ("key" varchar(255) not null, "hits" int not null, "reset_at" timestamptz(6) not null, primary key ("key"));`,
    );
    this.addSql(`create index "rate_limit_buckets_reset_at_index" on "rate_limit_buckets" ("reset_at");`);

    this.addSql(`alter table "tenants" add "allowed_link_hosts" text[] not null default '{}';`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "rate_limit_buckets" cascade;`);

    this.addSql(`alter table "tenants" drop column "allowed_link_hosts";`);
  }
}
