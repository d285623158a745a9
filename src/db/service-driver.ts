import { PostgreSqlDriver, PostgreSqlPlatform } from '@mikro-orm/postgresql';
import type { Configuration } from '@mikro-orm/core';
import { parseIsoTimestamp } from '../timestamps.js';

/** PostgreSQL as MikroORM knows it, but reading the ISO timestamps of JSON rows by their digits. */
class ServicePlatform extends PostgreSqlPlatform {
  override parseDate(value: string | number): Date {
    return (typeof value === 'string' ? parseIsoTimestamp(value) : undefined) ?? super.parseDate(value);
  }
}

/** MikroORM's PostgreSQL driver on the platform above (the driver is the one place a platform is chosen). */
export class ServicePostgreSqlDriver extends PostgreSqlDriver {
  constructor(config: Configuration) {
    super(config);
    // PostgreSqlDriver's constructor fixes its platform; the configuration reads it only after this returns.
    (this as unknown as { platform: PostgreSqlPlatform }).platform = new ServicePlatform();
  }
}
