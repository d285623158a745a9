import { Migration } from '@mikro-orm/migrations';

export class Migration20261125221053_principal_revocations extends Migration {
  override name = 'Migration20261125221053_principal_revocations';

  override up(): void | Promise<void> {
    this.addSql(
      `create or replace function "oauth_clients_signal_client_revoked_fn"() returns trigger as $$ begin perform pg_notify('principal_revoked', coalesce(old.client_id, '')); return null; end; $$ language plpgsql;`,
    );
    this.addSql(`create trigger "signal_client_revoked" AFTER UPDATE on "oauth_clients" for each ROW
  when (old.revoked_at is null and new.revoked_at is not null) execute function "oauth_clients_signal_client_revoked_fn"();`);
    this.addSql(
      `create or replace function "oauth_clients_signal_client_deleted_fn"() returns trigger as $$ begin perform pg_notify('principal_revoked', coalesce(old.client_id, '')); return null; end; $$ language plpgsql;`,
    );
    this.addSql(
      `create trigger "signal_client_deleted" AFTER DELETE on "oauth_clients" for each ROW execute function "oauth_clients_signal_client_deleted_fn"();`,
    );

    this.addSql(
      `create or replace function "oauth_access_tokens_signal_token_revoked_fn"() returns trigger as $$ begin perform pg_notify('principal_revoked', coalesce((select client.client_id from oauth_clients client where client.uuid = old.client_uuid), '')); return null; end; $$ language plpgsql;`,
    );
    this.addSql(`create trigger "signal_token_revoked" AFTER UPDATE on "oauth_access_tokens" for each ROW
  when (old.revoked_at is null and new.revoked_at is not null) execute function "oauth_access_tokens_signal_token_revoked_fn"();`);
    this.addSql(
      `create or replace function "oauth_access_tokens_signal_token_deleted_fn"() returns trigger as $$ begin perform pg_notify('principal_revoked', coalesce((select client.client_id from oauth_clients client where client.uuid = old.client_uuid), '')); return null; end; $$ language plpgsql;`,
    );
    this.addSql(`create trigger "signal_token_deleted" AFTER DELETE on "oauth_access_tokens" for each ROW
  when (old.expires_at > now()) execute function "oauth_access_tokens_signal_token_deleted_fn"();`);
  }

  override down(): void | Promise<void> {
    for (const [table, trigger] of [
      ['oauth_clients', 'signal_client_revoked'],
      ['oauth_clients', 'signal_client_deleted'],
      ['oauth_access_tokens', 'signal_token_revoked'],
      ['oauth_access_tokens', 'signal_token_deleted'],
    ]) {
      this.addSql(`drop trigger if exists "${trigger}" on "${table}";`);
      this.addSql(`drop function if exists "${table}_${trigger}_fn"();`);
    }
  }
}
