import { randomFillSync } from 'node:crypto';

/**
 * RFC 9562 version 7 UUID: 48 bits of Unix milliseconds, then randomness. Time-ordered ids keep
 * b-tree inserts local and make "uuid ascending" equal creation order for cursor pagination.
 */
// Random bytes are drawn from a pooled buffer: one system call per 256 ids instead of one each.
const POOL_IDS = 256;
const pool = Buffer.alloc(16 * POOL_IDS);
let next = POOL_IDS;

function randomId(): Buffer {
  if (next === POOL_IDS) {
    randomFillSync(pool);
    next = 0;
  }
  return Buffer.from(pool.subarray(16 * next, 16 * ++next));
}

export function uuidv7(now: number = Date.now()): string {
  const bytes = randomId();
  bytes.writeUIntBE(now, 0, 6);
  bytes[6] = (bytes[6]! & 0x0f) | 0x70;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

const UUID_SHAPE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isUuid(value: unknown): value is string {
  return typeof value === 'string' && UUID_SHAPE.test(value);
}
