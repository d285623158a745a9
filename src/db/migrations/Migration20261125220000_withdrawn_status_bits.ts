import { Migration } from '@mikro-orm/migrations';

/**
 * Credentials withdrawn before the public lifecycle rule (docs/public-lifecycle.md) read as revoked
 * from now on, as deletions made since do: every bit of a deleted institution's lists is set, and
 * the bit of each deleted certificate's credential (the formula of src/badges/v3/status-list.ts).
 */
export class Migration20261125220000_withdrawn_status_bits extends Migration {
  override name = 'Migration20261125220000_withdrawn_status_bits';

  override up(): void | Promise<void> {
    this.addSql(`update "ob3_status_lists" set "bits" = decode(repeat('ff', length("bits")), 'hex'), "version" = "version" + 1, "updated_at" = now()
  where "institution_uuid" in (select "uuid" from "institutions" where "deleted_at" is not null);`);
    this.addSql(`do $$
declare withdrawn record;
begin
  for withdrawn in
    select o."institution_uuid", o."status_index" from "ob3_credentials" o join "certificates" c on c."uuid" = o."certificate_uuid"
    where c."deleted_at" is not null
  loop
    update "ob3_status_lists" set "bits" = set_bit("bits", (withdrawn."status_index" / 8) * 8 + 7 - withdrawn."status_index" % 8, 1),
      "version" = "version" + 1, "updated_at" = now()
    where "institution_uuid" = withdrawn."institution_uuid";
  end loop;
end $$;`);
  }

  override down(): void | Promise<void> {
    // Setting a revocation bit is not undone: a withdrawn credential stays revoked.
  }
}
