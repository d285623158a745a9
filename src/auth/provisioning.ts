import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { Config } from '../config.js';
import type { Orm } from '../db/orm.js';
import type { Logger } from '../logger.js';
import { TenantService } from '../tenants/tenant.service.js';
import { ClientService, type ClientCredentials } from './client.service.js';

const DEMO_TENANT = 'demo';

/** Startup provisioning, before the server listens: with SEED_* set, that tenant and client exist afterwards (idempotent). */
export async function provision(orm: Orm, config: Config, logger: Logger): Promise<void> {
  if (!config.seed) return;
  const { tenant, clientId, clientSecret } = config.seed;
  const outcome = await new ClientService(orm.em.fork()).ensure({ tenant, clientId, clientSecret });
  logger.info({ tenant, clientId, outcome }, 'seed client provisioned');
}

/**
 * In development without SEED_*: a `demo` tenant and client, created on the first start once the
 * server listens (a start that fails earlier, e.g. on a taken port, creates nothing), and their
 * credentials printed that one time (only the secret's hash is kept). Of processes starting together
 * on one database, one creates and prints; the others find it there.
 */
export async function provisionDemoTenant(orm: Orm, config: Config, logger: Logger, print = (text: string) => void process.stdout.write(text)): Promise<void> {
  if (config.seed || config.env !== 'development') return;
  let credentials: ClientCredentials | null;
  try {
    credentials = await orm.em.fork().transactional(async (em) => {
      if (await new TenantService(em).findByIdentifier(DEMO_TENANT)) return null;
      await new TenantService(em).create(DEMO_TENANT, 'Demo tenant');
      return new ClientService(em).create(DEMO_TENANT, 'demo');
    });
  } catch (error) {
    if (error instanceof UniqueConstraintViolationException) return;
    throw error;
  }
  if (!credentials) return;
  logger.info({ tenant: DEMO_TENANT, clientId: credentials.clientId }, 'demo tenant created');
  print(
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
