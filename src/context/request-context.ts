import type { EntityManager } from '@mikro-orm/postgresql';
import type { Principal } from '../auth/token.service.js';
import type { BadgeWorkers } from '../badges/badge-workers.js';
import type { Anchoring } from '../anchoring/anchor-scheduler.js';
import type { WebhookConfig } from '../config.js';
import type { SigningKeys } from '../certificates/signing-keys.js';
import { scopeToTenant } from '../db/tenant-scope.js';
import type { DocumentWorkers } from '../documents/index.js';
import type { JobOwner } from '../documents/worker-pool.js';
import type { FileRuntime } from '../files/file-runtime.js';
import type { Logger } from '../logger.js';
import type { PreviewCache } from '../templates/preview-cache.js';
import { Loaders } from './loaders.js';
import { ResponseBudget } from './response-budget.js';

/** Long-lived objects of the running service, built once at startup; every context carries them. */
export interface ServiceRuntime {
  /** Where untrusted PDFs are parsed: worker threads with time and heap limits. */
  documents: DocumentWorkers;
  /** Where badge images from the public are unbaked and credential proofs checked: worker threads with time and heap limits. */
  badgeWorkers: BadgeWorkers;
  /** Upload limits, storage drivers and the per-tenant upload slots. */
  files: FileRuntime;
  /** Seals and opens the institutions' private signing keys (one cache of opened signers). */
  signingKeys: SigningKeys;
  /** What registering a webhook endpoint checks: the per-tenant limit and whether private addresses may be targets. */
  webhooks: Pick<WebhookConfig, 'maxEndpointsPerTenant' | 'allowPrivate'>;
  /** Template previews already drawn (templates/template-preview.ts). */
  previews: PreviewCache;
  /** Blockchain anchoring when ANCHOR_RPC_URL is set (its chain, key and runs); absent when off. */
  anchoring?: Anchoring;
}

/** What a request without a token (public pages, downloads, verification) carries into the core. */
export interface PublicContext extends ServiceRuntime {
  requestId: string;
  logger: Logger;
  /** A fresh fork; public reads cross tenants only by an unguessable uuid, with the filter off explicitly. */
  em: EntityManager;
  /** Origin of the links the service generates (verification pages, downloads). */
  publicBaseUrl: string;
  /** Whom worker jobs of this request are done for: the client address (public), the tenant (authenticated). */
  jobOwner: JobOwner;
}

/** Everything an authenticated request carries into the business core; GraphQL and REST receive the same object. */
export interface RequestContext extends PublicContext {
  principal: Principal;
  tenant: Principal['tenant'];
  /** A fresh fork whose every query on tenant data is scoped to `tenant`. */
  em: EntityManager;
  loaders: Loaders;
}

export function createPublicContext(
  rootEm: EntityManager,
  runtime: ServiceRuntime,
  request: { requestId: string; logger: Logger; publicBaseUrl: string; jobOwner: JobOwner },
): PublicContext {
  return { ...runtime, ...request, em: rootEm.fork() };
}

/** The lane of a tenant's worker jobs: tenants take turns on the tenants' pool. */
export const tenantJobOwner = (tenantUuid: string): JobOwner => ({ lane: `tenant:${tenantUuid}` });

export function createRequestContext(
  rootEm: EntityManager,
  principal: Principal,
  requestId: string,
  logger: Logger,
  publicBaseUrl: string,
  runtime: ServiceRuntime,
  /** What the request's answer may take (RESPONSE_MAX_BYTES); jobs and the CLI answer nobody. */
  budget = new ResponseBudget(Number.POSITIVE_INFINITY),
): RequestContext {
  const em = scopeToTenant(rootEm.fork(), principal.tenant.uuid);
  const loaders = new Loaders(em, budget);
  const jobOwner = tenantJobOwner(principal.tenant.uuid);
  return { ...runtime, requestId, logger, principal, tenant: principal.tenant, em, loaders, publicBaseUrl, jobOwner };
}
