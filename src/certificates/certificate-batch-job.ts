import type { Principal } from '../auth/token.service.js';
import type { RequestContext } from '../context/request-context.js';
import type { Job } from '../jobs/job.entity.js';
import { jobs } from '../jobs/job.service.js';
import type { StoredItemResult } from '../jobs/job.views.js';
import type { JobRunner } from '../jobs/job.task.js';
import { BATCH_CHUNK_ITEMS, type BatchItem, CERTIFICATE_BATCH, checkBatch, INLINE_BATCH_ITEMS, issueItem, revivedItems } from './certificate-batch.js';
import type { CertificateInput } from './certificate.inputs.js';

/**
 * Issues the items from where `results` left off, chunk by chunk, saving progress after each;
 * stops between chunks when asked. True when every item has a result.
 */
async function runItems(ctx: RequestContext, jobUuid: string, items: BatchItem[], results: StoredItemResult[], stopping: () => boolean): Promise<boolean> {
  for (let start = results.length; start < items.length; start += BATCH_CHUNK_ITEMS) {
    if (stopping()) return false;
    for (const [offset, item] of items.slice(start, start + BATCH_CHUNK_ITEMS).entries()) results.push(await issueItem(ctx, start + offset, item));
    await jobs.progress(ctx, jobUuid, results);
  }
  await jobs.complete(ctx, jobUuid);
  return true;
}

/**
 * `createCertificates` / `POST /certificates/batch`: every item checked first (one 422 for all),
 * then a job: run during the request up to INLINE_BATCH_ITEMS items, else left to the job worker.
 */
export async function issueBatch(ctx: RequestContext, inputs: CertificateInput[]): Promise<Job> {
  const items = await checkBatch(ctx, inputs);
  const inline = items.length <= INLINE_BATCH_ITEMS;
  const job = await jobs.create(ctx, { kind: CERTIFICATE_BATCH, total: items.length, payload: items, held: inline });
  if (inline) await runItems(ctx, job.uuid, items, [], () => false);
  return jobs.get({ ...ctx, em: ctx.em.fork() }, job.uuid);
}

/** The job worker's runner for certificate batches, acting as the client that sent the batch. */
export function certificateBatchRunner(contextFor: (principal: Principal) => RequestContext): JobRunner {
  return async (job, stopping) => {
    await runItems(contextFor(job.principal), job.uuid, revivedItems(job.payload), [...(job.results as StoredItemResult[])], stopping);
  };
}
