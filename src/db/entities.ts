import { AccessToken } from '../auth/access-token.entity.js';
import { OAuthClient } from '../auth/oauth-client.entity.js';
import { Institution } from '../institutions/institution.entity.js';
import { Tenant } from '../tenants/tenant.entity.js';

/** Every entity the ORM knows; listed explicitly so builds and tests need no file discovery. */
export const entities = [Tenant, OAuthClient, AccessToken, Institution];
