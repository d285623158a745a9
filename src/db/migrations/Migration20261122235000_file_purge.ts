import { Migration } from '@mikro-orm/migrations';

export class Migration20261122235000_file_purge extends Migration {
  override name = 'Migration20261122235000_file_purge';

  override up(): void | Promise<void> {
    this.addSql(`alter table "files" add column "purged_at" timestamptz(6) null;`);
    this.addSql(`create index "files_purge_index" on "files" ("deleted_at") where "deleted_at" is not null and "purged_at" is null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop index "files_purge_index";`);
    this.addSql(`alter table "files" drop column "purged_at";`);
  }
}
