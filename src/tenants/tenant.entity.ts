import { type Opt } from '@mikro-orm/core';
import { Entity, PrimaryKey, Property } from '@mikro-orm/decorators/legacy';
import { uuidv7 } from '../db/uuid.js';

/** An organisation using the service; the value of `X-Tenant` is its `identifier`. */
@Entity({ tableName: 'tenants' })
export class Tenant {
  @PrimaryKey({ type: 'uuid' })
  uuid: string & Opt = uuidv7();

  @Property({ length: 63, unique: true })
  identifier!: string;

  @Property({ length: 255 })
  name!: string;

  /**
   * Hosts (each with its subdomains) besides PUBLIC_BASE_URL's where a certificate's
   * `public_verification_url` may point; set by the operator (`tenant:link-hosts`), never through the API.
   */
  @Property({ type: 'text[]', defaultRaw: `'{}'` })
  allowedLinkHosts: string[] & Opt = [];

  /** Who hears about the tenant's integration problems (a disabled webhook endpoint); set by the operator (`tenant:contact`). */
  @Property({ length: 320, nullable: true })
  contactEmail?: string | null;

  @Property({ type: 'datetime', columnType: 'timestamptz(6)' })
  createdAt: Date & Opt = new Date();
}
