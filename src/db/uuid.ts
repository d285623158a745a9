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

// Ids of one millisecond carry a 26-bit sequence after the time (RFC 9562 §6.2, method 1), started at
// a random value below half its range: ids made in the same millisecond sort in the order they were made.
const SEQUENCE_SEED = 0x1ffffff;
const SEQUENCE_MAX = 0x3ffffff;
let sequenceMs = -1;
let sequence = 0;

function sequenceOf(now: number, bytes: Buffer): number {
  if (now === sequenceMs && sequence < SEQUENCE_MAX) return ++sequence;
  sequenceMs = now;
  sequence = bytes.readUInt32BE(6) & SEQUENCE_SEED;
  return sequence;
}

export function uuidv7(now: number = Date.now()): string {
  const bytes = randomId();
  const counter = sequenceOf(now, bytes);
  bytes.writeUIntBE(now, 0, 6);
  bytes[6] = 0x70 | ((counter >>> 22) & 0x0f);
  bytes[7] = (counter >>> 14) & 0xff;
  bytes[8] = 0x80 | ((counter >>> 8) & 0x3f);
  bytes[9] = counter & 0xff;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

const UUID_SHAPE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isUuid(value: unknown): value is string {
  return typeof value === 'string' && UUID_SHAPE.test(value);
}
