/**
 * Entry of a badge worker thread (started by BadgeWorkers): unbakes images and checks credential
 * proofs, one job at a time. The JSON-LD contexts are processed once here, before the first job.
 */
import { answerJobs } from '../documents/worker-thread.js';
import { runBadgeJob } from './badge-jobs.js';
import { warmUpCredentialChecks } from './v3/credential-warm-up.js';

await warmUpCredentialChecks();
answerJobs(runBadgeJob);
