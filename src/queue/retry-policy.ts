/** How a kind of work is retried: one shape for e-mails and webhook deliveries alike. */
export interface RetryPolicy {
  /** After this many failed attempts the work is given up as `failed`. */
  maxAttempts: number;
  /** Wait after the first failure; doubles with every further one, up to `maxBackoffSeconds`. */
  baseBackoffSeconds: number;
  maxBackoffSeconds: number;
}

/**
 * The `set` list that records a failed attempt on an outbox row under `policy` (`?` placeholders, in
 * order: max backoff, base backoff, max attempts): one more attempt, the next one due after the
 * backoff, and the row given up as `failed` at the last. Setting `next_attempt_at` and clearing
 * `locked_until` is what schedules the next run (the row's queue trigger).
 */
export const RECORD_FAILED_ATTEMPT = (attempts: string, statusType: string) => `${attempts} = ${attempts} + 1,
  locked_until = null,
  updated_at = now(),
  next_attempt_at = now() + make_interval(secs => least(?, ? * power(2, ${attempts}))),
  status = case when ${attempts} + 1 >= ? then 'failed'::${statusType} else status end`;

export const retryParameters = ({ maxAttempts, baseBackoffSeconds, maxBackoffSeconds }: RetryPolicy) => [maxBackoffSeconds, baseBackoffSeconds, maxAttempts];
