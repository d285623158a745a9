import { Migration } from '@mikro-orm/migrations';

/** The language of a certificate's e-mail (null: the service's default). */
export class Migration20261126012000_certificate_locale extends Migration {
  override name = 'Migration20261126012000_certificate_locale';

  override up(): void | Promise<void> {
    this.addSql(`alter table "certificates" add "locale" varchar(10) null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "certificates" drop column "locale";`);
  }
}
