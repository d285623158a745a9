/**
 * Entry of a document worker thread (started by DocumentWorkers): runs one job at a time and posts
 * back its value or a description of its error. pdf-lib's process-wide tables live and die here.
 */
import { parentPort } from 'node:worker_threads';
import { runDocumentJob, type DocumentJob } from './document-jobs.js';
import { preloadPrimaryFace } from './font-library.js';

const port = parentPort!;

port.on('message', async ({ id, job }: { id: number; job: DocumentJob }) => {
  try {
    port.postMessage({ id, ok: true, value: await runDocumentJob(job) });
  } catch (caught) {
    const error = caught instanceof Error ? caught : new Error(String(caught));
    const reason = (error as { reason?: unknown }).reason;
    port.postMessage({ id, ok: false, error: { name: error.name, message: error.message, reason: typeof reason === 'string' ? reason : undefined } });
  }
});
preloadPrimaryFace();
port.postMessage('ready');
