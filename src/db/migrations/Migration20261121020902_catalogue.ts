import { Migration } from '@mikro-orm/migrations';

export class Migration20261121020902_catalogue extends Migration {
  override name = 'Migration20261121020902_catalogue';

  override up(): void | Promise<void> {
    this.addSql(`create type "module_modality" as enum ('in_person', 'online', 'hybrid');`);
    this.addSql(`create type "module_level" as enum ('undergraduate', 'graduate', 'technical', 'open');`);
    this.addSql(`create type "cohort_modality" as enum ('presential', 'remote', 'hybrid');`);
    this.addSql(`create type "completion_status" as enum ('enrolled', 'completed', 'dropped');`);
    this.addSql(`create type "template_status" as enum ('active', 'inactive');`);
    this.addSql(
      `create table "students" ("uuid" uuid not null, "created_at" timestamptz(6) not null, "updated_at" timestamptz(6) not null, "tenant_uuid" uuid not null, "deleted_at" timestamptz(6) null, "name" varchar(255) not null, "email" varchar(255) not null, "date_of_birth" date not null, "gender" varchar(50) null, "social_name" varchar(255) null, primary key ("uuid"));`,
    );
    this.addSql(`create index "students_tenant_uuid_index" on "students" ("tenant_uuid");`);
    this.addSql(`create unique index "students_email_unique" on "students" ("tenant_uuid", "email") where "deleted_at" is null;`);

    this.addSql(
      `create table "modules" ("uuid" uuid not null, "created_at" timestamptz(6) not null, "updated_at" timestamptz(6) not null, "tenant_uuid" uuid not null, "deleted_at" timestamptz(6) null, "institution_uuid" uuid not null, "code" varchar(20) null, "name" varchar(150) not null, "description" text null, "syllabus" text null, "workload" int null, "credits" int null, "modality" "module_modality" null, "level" "module_level" null, "is_active" boolean not null default true, "is_required" boolean not null default false, primary key ("uuid"));`,
    );
    this.addSql(`create index "modules_tenant_uuid_index" on "modules" ("tenant_uuid");`);
    this.addSql(`create index "modules_institution_uuid_index" on "modules" ("institution_uuid");`);
    this.addSql(
      `create unique index "modules_code_unique" on "modules" ("institution_uuid", lower("code")) where "deleted_at" is null and "code" is not null;`,
    );

    this.addSql(
      `create table "courses" ("uuid" uuid not null, "created_at" timestamptz(6) not null, "updated_at" timestamptz(6) not null, "tenant_uuid" uuid not null, "deleted_at" timestamptz(6) null, "institution_uuid" uuid not null, "name" varchar(255) not null, "code" varchar(50) null, "description" text null, "workload" int null, "is_active" boolean not null default true, primary key ("uuid"));`,
    );
    this.addSql(`create index "courses_tenant_uuid_index" on "courses" ("tenant_uuid");`);
    this.addSql(`create index "courses_institution_uuid_index" on "courses" ("institution_uuid");`);

    this.addSql(
      `create table "module_groups" ("uuid" uuid not null, "created_at" timestamptz(6) not null, "updated_at" timestamptz(6) not null, "tenant_uuid" uuid not null, "deleted_at" timestamptz(6) null, "course_uuid" uuid not null, "name" varchar(255) not null, "order" int null, "is_active" boolean not null default true, primary key ("uuid"));`,
    );
    this.addSql(`create index "module_groups_tenant_uuid_index" on "module_groups" ("tenant_uuid");`);
    this.addSql(`create index "module_groups_course_uuid_index" on "module_groups" ("course_uuid");`);

    this.addSql(
      `create table "course_modules" ("uuid" uuid not null, "created_at" timestamptz(6) not null, "updated_at" timestamptz(6) not null, "tenant_uuid" uuid not null, "deleted_at" timestamptz(6) null, "course_uuid" uuid not null, "module_uuid" uuid not null, "group_uuid" uuid null, "order" int not null, primary key ("uuid"));`,
    );
    this.addSql(`create index "course_modules_tenant_uuid_index" on "course_modules" ("tenant_uuid");`);
    this.addSql(`create index "course_modules_course_uuid_index" on "course_modules" ("course_uuid");`);
    this.addSql(`create index "course_modules_module_uuid_index" on "course_modules" ("module_uuid");`);
    this.addSql(`create index "course_modules_group_uuid_index" on "course_modules" ("group_uuid");`);
    this.addSql(`create unique index "course_modules_unique" on "course_modules" ("course_uuid", "module_uuid") where "deleted_at" is null;`);

    this.addSql(
      `create table "cohorts" ("uuid" uuid not null, "created_at" timestamptz(6) not null, "updated_at" timestamptz(6) not null, "tenant_uuid" uuid not null, "deleted_at" timestamptz(6) null, "course_uuid" uuid not null, "code" varchar(50) not null, "modality" "cohort_modality" null, "start_date" timestamptz(6) null, "end_date" timestamptz(6) null, primary key ("uuid"));`,
    );
    this.addSql(`create index "cohorts_tenant_uuid_index" on "cohorts" ("tenant_uuid");`);
    this.addSql(`create index "cohorts_course_uuid_index" on "cohorts" ("course_uuid");`);
    this.addSql(`create unique index "cohorts_code_unique" on "cohorts" ("course_uuid", lower("code")) where "deleted_at" is null;`);

    this.addSql(
      `create table "enrollments" ("uuid" uuid not null, "created_at" timestamptz(6) not null, "updated_at" timestamptz(6) not null, "tenant_uuid" uuid not null, "deleted_at" timestamptz(6) null, "student_uuid" uuid not null, "course_uuid" uuid not null, "cohort_uuid" uuid null, "completion_status" "completion_status" not null default 'enrolled', "grade" numeric(4,2) null, "enrolled_at" timestamptz(6) not null, "completed_at" timestamptz(6) null, primary key ("uuid"));`,
    );
    this.addSql(`create index "enrollments_tenant_uuid_index" on "enrollments" ("tenant_uuid");`);
    this.addSql(`create index "enrollments_student_uuid_index" on "enrollments" ("student_uuid");`);
    this.addSql(`create index "enrollments_course_uuid_index" on "enrollments" ("course_uuid");`);
    this.addSql(`create index "enrollments_cohort_uuid_index" on "enrollments" ("cohort_uuid");`);

    this.addSql(
      `create table "certificate_templates" ("uuid" uuid not null, "created_at" timestamptz(6) not null, "updated_at" timestamptz(6) not null, "tenant_uuid" uuid not null, "deleted_at" timestamptz(6) null, "institution_uuid" uuid not null, "name" varchar(255) not null, "version" varchar(50) not null, "path" varchar(1024) not null, "preview_image_path" varchar(1024) null, "design_config" jsonb null, "is_default" boolean not null default false, "status" "template_status" not null default 'active', primary key ("uuid"));`,
    );
    this.addSql(`create index "certificate_templates_tenant_uuid_index" on "certificate_templates" ("tenant_uuid");`);
    this.addSql(`create index "certificate_templates_institution_uuid_index" on "certificate_templates" ("institution_uuid");`);
    this.addSql(
      `create unique index "certificate_templates_default_unique" on "certificate_templates" ("institution_uuid") where "is_default" and "deleted_at" is null;`,
    );

    this.addSql(`alter table "students" add constraint "students_tenant_uuid_foreign" foreign key ("tenant_uuid") references "tenants" ("uuid");`);

    this.addSql(`alter table "modules" add constraint "modules_tenant_uuid_foreign" foreign key ("tenant_uuid") references "tenants" ("uuid");`);
    this.addSql(`alter table "modules" add constraint "modules_institution_uuid_foreign" foreign key ("institution_uuid") references "institutions" ("uuid");`);

    this.addSql(`alter table "courses" add constraint "courses_tenant_uuid_foreign" foreign key ("tenant_uuid") references "tenants" ("uuid");`);
    this.addSql(`alter table "courses" add constraint "courses_institution_uuid_foreign" foreign key ("institution_uuid") references "institutions" ("uuid");`);

    this.addSql(`alter table "module_groups" add constraint "module_groups_tenant_uuid_foreign" foreign key ("tenant_uuid") references "tenants" ("uuid");`);
    this.addSql(`alter table "module_groups" add constraint "module_groups_course_uuid_foreign" foreign key ("course_uuid") references "courses" ("uuid");`);

    this.addSql(`alter table "course_modules" add constraint "course_modules_tenant_uuid_foreign" foreign key ("tenant_uuid") references "tenants" ("uuid");`);
    this.addSql(`alter table "course_modules" add constraint "course_modules_course_uuid_foreign" foreign key ("course_uuid") references "courses" ("uuid");`);
    this.addSql(`alter table "course_modules" add constraint "course_modules_module_uuid_foreign" foreign key ("module_uuid") references "modules" ("uuid");`);
    this.addSql(
      `alter table "course_modules" add constraint "course_modules_group_uuid_foreign" foreign key ("group_uuid") references "module_groups" ("uuid") on delete set null;`,
    );

    this.addSql(`alter table "cohorts" add constraint "cohorts_tenant_uuid_foreign" foreign key ("tenant_uuid") references "tenants" ("uuid");`);
    this.addSql(`alter table "cohorts" add constraint "cohorts_course_uuid_foreign" foreign key ("course_uuid") references "courses" ("uuid");`);

    this.addSql(`alter table "enrollments" add constraint "enrollments_tenant_uuid_foreign" foreign key ("tenant_uuid") references "tenants" ("uuid");`);
    this.addSql(`alter table "enrollments" add constraint "enrollments_student_uuid_foreign" foreign key ("student_uuid") references "students" ("uuid");`);
    this.addSql(`alter table "enrollments" add constraint "enrollments_course_uuid_foreign" foreign key ("course_uuid") references "courses" ("uuid");`);
    this.addSql(
      `alter table "enrollments" add constraint "enrollments_cohort_uuid_foreign" foreign key ("cohort_uuid") references "cohorts" ("uuid") on delete set null;`,
    );

    this.addSql(
      `alter table "certificate_templates" add constraint "certificate_templates_tenant_uuid_foreign" foreign key ("tenant_uuid") references "tenants" ("uuid");`,
    );
    this.addSql(
      `alter table "certificate_templates" add constraint "certificate_templates_institution_uuid_foreign" foreign key ("institution_uuid") references "institutions" ("uuid");`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "enrollments" drop constraint "enrollments_student_uuid_foreign";`);
    this.addSql(`alter table "course_modules" drop constraint "course_modules_module_uuid_foreign";`);
    this.addSql(`alter table "module_groups" drop constraint "module_groups_course_uuid_foreign";`);
    this.addSql(`alter table "course_modules" drop constraint "course_modules_course_uuid_foreign";`);
    this.addSql(`alter table "cohorts" drop constraint "cohorts_course_uuid_foreign";`);
    this.addSql(`alter table "enrollments" drop constraint "enrollments_course_uuid_foreign";`);
    this.addSql(`alter table "course_modules" drop constraint "course_modules_group_uuid_foreign";`);
    this.addSql(`alter table "enrollments" drop constraint "enrollments_cohort_uuid_foreign";`);

    this.addSql(`drop table if exists "students" cascade;`);
    this.addSql(`drop table if exists "modules" cascade;`);
    this.addSql(`drop table if exists "courses" cascade;`);
    this.addSql(`drop table if exists "module_groups" cascade;`);
    this.addSql(`drop table if exists "course_modules" cascade;`);
    this.addSql(`drop table if exists "cohorts" cascade;`);
    this.addSql(`drop table if exists "enrollments" cascade;`);
    this.addSql(`drop table if exists "certificate_templates" cascade;`);

    this.addSql(`drop type "module_modality";`);
    this.addSql(`drop type "module_level";`);
    this.addSql(`drop type "cohort_modality";`);
    this.addSql(`drop type "completion_status";`);
    this.addSql(`drop type "template_status";`);
  }
}
