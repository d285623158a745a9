import type { EntityManager } from '@mikro-orm/postgresql';
import type { Principal } from '../auth/token.service.js';
import { scopeToTenant } from '../db/tenant-scope.js';
import type { DocumentWorkers } from '../documents/index.js';
import type { Logger } from '../logger.js';
import { Loaders } from './loaders.js';

/** Everything a request carries into the business core; GraphQL and REST receive the same object. */
export interface RequestContext {
  requestId: string;
  logger: Logger;
  principal: Principal;
  tenant: Principal['tenant'];
  /** A fresh fork whose every query on tenant data is scoped to `tenant`. */
  em: EntityManager;
  loaders: Loaders;
  /** Origin of the links the service generates (verification pages, downloads). */
  publicBaseUrl: string;
  /** Where untrusted PDFs are parsed: worker threads with time and heap limits. */
  documents: DocumentWorkers;
}

/** Long-lived objects of the running service that requests reach through their context. */
export interface ServiceRuntime {
  documents: DocumentWorkers;
}

export function createRequestContext(
  rootEm: EntityManager,
  principal: Principal,
  requestId: string,
  logger: Logger,
  publicBaseUrl: string,
  runtime: ServiceRuntime,
): RequestContext {
  const em = scopeToTenant(rootEm.fork(), principal.tenant.uuid);
  return { requestId, logger, principal, tenant: principal.tenant, em, loaders: new Loaders(em), publicBaseUrl, documents: runtime.documents };
}
