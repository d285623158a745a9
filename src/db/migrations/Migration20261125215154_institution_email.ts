import { Migration } from '@mikro-orm/migrations';

/** Institutions get a contact e-mail (the Open Badges issuer email); nullable, so existing rows stay valid until edited. */
export class Migration20261125215154_institution_email extends Migration {
  override name = 'Migration20261125215154_institution_email';

  override up(): void | Promise<void> {
    this.addSql(`alter table "institutions" add "email" varchar(255) null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "institutions" drop column "email";`);
  }
}
