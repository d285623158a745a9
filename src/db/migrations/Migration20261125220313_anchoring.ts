import { Migration } from '@mikro-orm/migrations';

export class Migration20261125220313_anchoring extends Migration {
  override name = 'Migration20261125220313_anchoring';

  override up(): void | Promise<void> {
    this.addSql(
      `create table "anchor_batches" ("uuid" uuid not null, "network" varchar(16) not null, "from_address" varchar(42) not null, "merkle_root" varchar(64) not null, "size" int not null, "nonce" bigint not null, "tx_hash" varchar(66) not null, "raw_transaction" text not null, "signings" int not null default 1, "block_number" bigint null, "anchored_at" timestamptz(6) null, "confirmed_at" timestamptz(6) null, "created_at" timestamptz(6) not null, primary key ("uuid"));`,
    );
    this.addSql(`create index "anchor_batches_open_index" on "anchor_batches" ("from_address") where "confirmed_at" is null;`);

    this.addSql(
      `create table "anchor_keys" ("address" varchar(42) not null, "sealed_private_key" bytea null, "created_at" timestamptz(6) not null, primary key ("address"));`,
    );

    this.addSql(
      `create table "certificate_anchors" ("certificate_uuid" uuid not null, "batch_uuid" uuid not null, "target_hash" varchar(64) not null, "path" jsonb not null, "credential" jsonb not null, primary key ("certificate_uuid"));`,
    );
    this.addSql(`create index "certificate_anchors_batch_uuid_index" on "certificate_anchors" ("batch_uuid");`);

    // Until now clients wrote these two fields and nothing checked them; from here on only an anchoring
    // this service confirmed sets them, so unverified claims are cleared (those certificates get anchored).
    this.addSql(
      `update "certificates" set "blockchain_tx_hash" = null, "blockchain_tx_url" = null where "blockchain_tx_hash" is not null or "blockchain_tx_url" is not null;`,
    );
    this.addSql(
      `create index "certificates_unanchored_index" on "certificates" ("issued_at", "uuid") where "status" = 'issued' and "blockchain_tx_hash" is null and "deleted_at" is null;`,
    );

    this.addSql(
      `alter table "certificate_anchors" add constraint "certificate_anchors_certificate_uuid_foreign" foreign key ("certificate_uuid") references "certificates" ("uuid") on update cascade on delete cascade;`,
    );
    this.addSql(
      `alter table "certificate_anchors" add constraint "certificate_anchors_batch_uuid_foreign" foreign key ("batch_uuid") references "anchor_batches" ("uuid");`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`drop index "certificates_unanchored_index";`);
    this.addSql(`drop table if exists "certificate_anchors" cascade;`);
    this.addSql(`drop table if exists "anchor_batches" cascade;`);
    this.addSql(`drop table if exists "anchor_keys" cascade;`);
  }
}
