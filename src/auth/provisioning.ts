import type { Config } from '../config.js';
import type { Orm } from '../db/orm.js';
import type { Logger } from '../logger.js';
import { TenantService } from '../tenants/tenant.service.js';
import { ClientService } from './client.service.js';

const DEMO_TENANT = 'demo';

/**
 * Startup provisioning. With SEED_* set: that tenant and client exist afterwards (idempotent).
 * Without, in development only: a `demo` tenant and client are created on first start and their
 * credentials printed that one time (only the secret's hash is kept).
 */
export async function provision(orm: Orm, config: Config, logger: Logger): Promise<void> {
  const em = orm.em.fork();
  if (config.seed) {
    const { tenant, clientId, clientSecret } = config.seed;
    const outcome = await new ClientService(em).ensure({ tenant, clientId, clientSecret });
    logger.info({ tenant, clientId, outcome }, 'seed client provisioned');
    return;
  }
  if (config.env !== 'development') return;
  if (await new TenantService(em).findByIdentifier(DEMO_TENANT)) return;
  await new TenantService(em).create(DEMO_TENANT, 'Demo tenant');
  const credentials = await new ClientService(em).create(DEMO_TENANT, 'demo');
  logger.info({ tenant: DEMO_TENANT, clientId: credentials.clientId }, 'demo tenant created');
  process.stdout.write(
    [
      '',
      '  Demo tenant created. These credentials are shown once:',
      `    X-Tenant:       ${DEMO_TENANT}`,
      `    client_id:      ${credentials.clientId}`,
      `    client_secret:  ${credentials.clientSecret}`,
      '  (new pair any time: npm run cli -- client:create --tenant demo)',
      '',
      '',
    ].join('\n'),
  );
}
