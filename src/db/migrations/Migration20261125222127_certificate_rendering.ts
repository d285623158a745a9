import { Migration } from '@mikro-orm/migrations';

/** Certificates drawn from their template: a draft may have no source file until issuance draws it; free `attributes` its layout prints. */
export class Migration20261125222127_certificate_rendering extends Migration {
  override name = 'Migration20261125222127_certificate_rendering';

  override up(): void | Promise<void> {
    this.addSql(`alter table "certificates" add "attributes" jsonb null;`);
    this.addSql(`alter table "certificates" alter column "source_file_uuid" drop not null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "certificates" drop column "attributes";`);
    this.addSql(`alter table "certificates" alter column "source_file_uuid" set not null;`);
  }
}
