import { Migration } from '@mikro-orm/migrations';

export class Migration20261121021859_certificates extends Migration {
  override name = 'Migration20261121021859_certificates';

  override up(): void | Promise<void> {
    this.addSql(`create type "certificate_status" as enum ('draft', 'issued', 'revoked', 'expired');`);
    this.addSql(`create type "certificate_file_type" as enum ('source', 'certificate', 'transcript');`);
    this.addSql(
      `create table "signing_identities" ("uuid" uuid not null, "created_at" timestamptz(6) not null, "updated_at" timestamptz(6) not null, "tenant_uuid" uuid not null, "deleted_at" timestamptz(6) null, "institution_uuid" uuid not null, "p12" bytea not null, "passphrase" text not null, "fingerprint_sha256" varchar(95) not null, "not_after" timestamptz(6) not null, "origin" varchar(16) not null, primary key ("uuid"));`,
    );
    this.addSql(`create index "signing_identities_tenant_uuid_index" on "signing_identities" ("tenant_uuid");`);
    this.addSql(`create unique index "signing_identities_current_unique" on "signing_identities" ("institution_uuid") where "deleted_at" is null;`);

    this.addSql(
      `create table "certificates" ("uuid" uuid not null, "created_at" timestamptz(6) not null, "updated_at" timestamptz(6) not null, "tenant_uuid" uuid not null, "deleted_at" timestamptz(6) null, "institution_uuid" uuid not null, "course_uuid" uuid not null, "student_uuid" uuid not null, "cohort_uuid" uuid null, "enrollment_uuid" uuid null, "template_uuid" uuid null, "source_file_uuid" uuid not null, "status" "certificate_status" not null default 'draft', "issued_at" timestamptz(6) null, "revoked_at" timestamptz(6) null, "revocation_reason" text null, "expires_at" timestamptz(6) null, "public_verification_url" varchar(2048) null, "blockchain_tx_hash" varchar(255) null, "blockchain_tx_url" varchar(2048) null, "recipient_name" varchar(255) null, "recipient_social_name" varchar(255) null, "recipient_email" varchar(255) null, "recipient_date_of_birth" date null, primary key ("uuid"));`,
    );
    this.addSql(`create index "certificates_tenant_uuid_index" on "certificates" ("tenant_uuid");`);
    this.addSql(`create index "certificates_institution_uuid_index" on "certificates" ("institution_uuid");`);
    this.addSql(`create index "certificates_course_uuid_index" on "certificates" ("course_uuid");`);
    this.addSql(`create index "certificates_student_uuid_index" on "certificates" ("student_uuid");`);
    this.addSql(`create index "certificates_cohort_uuid_index" on "certificates" ("cohort_uuid");`);
    this.addSql(`create index "certificates_enrollment_uuid_index" on "certificates" ("enrollment_uuid");`);
    this.addSql(`create index "certificates_template_uuid_index" on "certificates" ("template_uuid");`);
    this.addSql(`create index "certificates_source_file_uuid_index" on "certificates" ("source_file_uuid");`);
    this.addSql(`create index "certificates_expiry_index" on "certificates" ("expires_at") where "status" = 'issued';`);
    this.addSql(
      `create unique index "certificates_source_file_unique" on "certificates" ("source_file_uuid") where "deleted_at" is null and "status" <> 'revoked';`,
    );

    this.addSql(
      `create table "certificate_documents" ("uuid" uuid not null, "created_at" timestamptz(6) not null, "updated_at" timestamptz(6) not null, "tenant_uuid" uuid not null, "deleted_at" timestamptz(6) null, "certificate_uuid" uuid not null, "file_uuid" uuid not null, "type" "certificate_file_type" not null, primary key ("uuid"));`,
    );
    this.addSql(`create index "certificate_documents_tenant_uuid_index" on "certificate_documents" ("tenant_uuid");`);
    this.addSql(`create index "certificate_documents_certificate_uuid_index" on "certificate_documents" ("certificate_uuid");`);
    this.addSql(`create index "certificate_documents_file_uuid_index" on "certificate_documents" ("file_uuid");`);

    this.addSql(
      `alter table "signing_identities" add constraint "signing_identities_tenant_uuid_foreign" foreign key ("tenant_uuid") references "tenants" ("uuid");`,
    );
    this.addSql(
      `alter table "signing_identities" add constraint "signing_identities_institution_uuid_foreign" foreign key ("institution_uuid") references "institutions" ("uuid");`,
    );

    this.addSql(`alter table "certificates" add constraint "certificates_tenant_uuid_foreign" foreign key ("tenant_uuid") references "tenants" ("uuid");`);
    this.addSql(
      `alter table "certificates" add constraint "certificates_institution_uuid_foreign" foreign key ("institution_uuid") references "institutions" ("uuid");`,
    );
    this.addSql(`alter table "certificates" add constraint "certificates_course_uuid_foreign" foreign key ("course_uuid") references "courses" ("uuid");`);
    this.addSql(`alter table "certificates" add constraint "certificates_student_uuid_foreign" foreign key ("student_uuid") references "students" ("uuid");`);
    this.addSql(
      `alter table "certificates" add constraint "certificates_cohort_uuid_foreign" foreign key ("cohort_uuid") references "cohorts" ("uuid") on delete set null;`,
    );
    this.addSql(
      `alter table "certificates" add constraint "certificates_enrollment_uuid_foreign" foreign key ("enrollment_uuid") references "enrollments" ("uuid") on delete set null;`,
    );
    this.addSql(
      `alter table "certificates" add constraint "certificates_template_uuid_foreign" foreign key ("template_uuid") references "certificate_templates" ("uuid") on delete set null;`,
    );
    this.addSql(
      `alter table "certificates" add constraint "certificates_source_file_uuid_foreign" foreign key ("source_file_uuid") references "files" ("uuid");`,
    );

    this.addSql(
      `alter table "certificate_documents" add constraint "certificate_documents_tenant_uuid_foreign" foreign key ("tenant_uuid") references "tenants" ("uuid");`,
    );
    this.addSql(
      `alter table "certificate_documents" add constraint "certificate_documents_certificate_uuid_foreign" foreign key ("certificate_uuid") references "certificates" ("uuid");`,
    );
    this.addSql(
      `alter table "certificate_documents" add constraint "certificate_documents_file_uuid_foreign" foreign key ("file_uuid") references "files" ("uuid");`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "certificate_documents" drop constraint "certificate_documents_certificate_uuid_foreign";`);

    this.addSql(`drop table if exists "signing_identities" cascade;`);
    this.addSql(`drop table if exists "certificates" cascade;`);
    this.addSql(`drop table if exists "certificate_documents" cascade;`);

    this.addSql(`drop type "certificate_status";`);
    this.addSql(`drop type "certificate_file_type";`);
  }
}
