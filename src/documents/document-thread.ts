/**
 * Entry of a document worker thread (started by DocumentWorkers): runs one job at a time and posts
 * back its value or a description of its error. pdf-lib's process-wide tables live and die here.
 */
import { runDocumentJob } from './document-jobs.js';
import { preloadPrimaryFace } from './font-library.js';
import { answerJobs } from './worker-thread.js';

preloadPrimaryFace();
answerJobs(runDocumentJob);
