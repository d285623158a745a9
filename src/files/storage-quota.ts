import { DomainError } from '../errors/domain-error.js';

const UNITS: [number, string][] = [
  [1024 ** 3, 'GiB'],
  [1024 ** 2, 'MiB'],
  [1024, 'KiB'],
];

/** 1073741824 → "1 GiB"; a size that is no whole unit stays in bytes. */
function size(bytes: number): string {
  const unit = UNITS.find(([factor]) => bytes >= factor && bytes % factor === 0);
  return unit ? `${bytes / unit[0]} ${unit[1]}` : `${bytes} bytes`;
}

export function quotaExceeded(quotaBytes: number, totalBytes: number): DomainError {
  return new DomainError(
    'PAYLOAD_TOO_LARGE',
    `The storage quota of this tenant (${size(quotaBytes)}) would be exceeded: its files would take ${totalBytes} bytes. Deleted files count until their content is purged.`,
  );
}

/**
 * Refuses (413, rolling the upload back) when the tenant's files take more than `quotaBytes` in
 * storage, this transaction's new ones included. Storage is what counts: a deleted file's bytes stay
 * until the purge removes its content (file-purge.ts, FILE_PURGE_GRACE_MS), so deleting and uploading
 * again cannot pin more than the quota. How `totalBytes` is counted makes concurrent uploads safe:
 * each upload's first record insert locks the tenant row (FOR NO KEY UPDATE, which foreign-key checks
 * of concurrent inserts do not wait on; file.repository.ts), and the total is read by a later statement,
 * whose snapshot is taken after the lock. So uploads of one tenant count one after the other, each
 * seeing the others' committed files: two uploads cannot both take the last bytes.
 */
export function enforceQuota(quotaBytes: number, totalBytes: number): void {
  if (totalBytes > quotaBytes) throw quotaExceeded(quotaBytes, totalBytes);
}
