import { Migration } from '@mikro-orm/migrations';

/** Whether an institution's issuance e-mails ask wallets for a PIN (docs/wallets.md). */
export class Migration20261126053500_wallet_pin extends Migration {
  override name = 'Migration20261126053500_wallet_pin';

  override up(): void | Promise<void> {
    this.addSql(`alter table "institutions" add "is_wallet_pin_required" boolean not null default false;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "institutions" drop column "is_wallet_pin_required";`);
  }
}
