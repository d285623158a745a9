import { validate } from 'class-validator';
import { ArgumentValidationError } from 'type-graphql';
import type { RequestContext } from '../context/request-context.js';
import { uuidv7 } from '../db/uuid.js';
import { classifyError } from '../errors/classify.js';
import { DomainError, invalid, type FieldErrors } from '../errors/domain-error.js';
import { VALIDATION_SETTINGS } from '../graphql/validators.js';
import type { StoredItemResult } from '../jobs/job.views.js';
import { effectiveStatus } from './certificate-rules.js';
import { Certificate } from './certificate.entity.js';
import type { CertificateInput } from './certificate.inputs.js';
import { certificates } from './certificate.service.js';

export const MAX_BATCH_ITEMS = 500;
/** Batches up to this many items are issued while the request waits; longer ones run as a job (202). */
export const INLINE_BATCH_ITEMS = 50;
/** Progress is saved (and the job's lease renewed) after every chunk. */
export const BATCH_CHUNK_ITEMS = 25;
export const CERTIFICATE_BATCH = 'certificates.batch';

/** One item of a batch: its input and the uuid its certificate will have (so a resumed job never creates it twice). */
export interface BatchItem {
  uuid: string;
  input: CertificateInput;
}

const prefixed = (index: number, errors: FieldErrors): FieldErrors =>
  Object.fromEntries(Object.entries(errors).map(([field, messages]) => [`inputs.${index}.${field}`, messages]));

/** The input rules (class-validator) of one item, as `create` would report them. */
async function inputRules(input: CertificateInput): Promise<FieldErrors> {
  const refused = await validate(input, VALIDATION_SETTINGS);
  return refused.length > 0 ? (classifyError(new ArgumentValidationError(refused)).fieldErrors ?? {}) : {};
}

/** The rules of `create` for one item (related rows, agreement, the file), run and rolled back. */
async function createRules(ctx: RequestContext, input: CertificateInput): Promise<FieldErrors> {
  try {
    await certificates.check(ctx, input);
    return {};
  } catch (error) {
    if (error instanceof DomainError && error.code === 'BAD_USER_INPUT') return error.fieldErrors ?? {};
    throw error;
  }
}

/**
 * Every item checked before anything is created: one 422 lists each failing item's fields as
 * `inputs.<index>.<field>`. An item whose input rules fail is not run against the database.
 */
export async function checkBatch(ctx: RequestContext, inputs: CertificateInput[]): Promise<BatchItem[]> {
  if (inputs.length === 0) throw invalid({ inputs: ['The inputs field must have at least 1 item.'] });
  if (inputs.length > MAX_BATCH_ITEMS) throw invalid({ inputs: [`The inputs field must not have more than ${MAX_BATCH_ITEMS} items.`] });
  const errors: FieldErrors = {};
  const fileTakenBy = new Map<string, number>();
  for (const [index, input] of inputs.entries()) {
    // Items the template draws (no file) share nothing.
    const earlier = input.fileUuid ? fileTakenBy.get(input.fileUuid) : undefined;
    if (input.fileUuid) fileTakenBy.set(input.fileUuid, earlier ?? index);
    const refused = await inputRules(input);
    if (earlier !== undefined) refused.fileUuid = [`The file uuid is already used by item ${earlier} of this batch.`];
    Object.assign(errors, prefixed(index, Object.keys(refused).length > 0 ? refused : await createRules(ctx, input)));
  }
  if (Object.keys(errors).length > 0) throw invalid(errors);
  return inputs.map((input) => ({ uuid: uuidv7(), input }));
}

function failure(ctx: RequestContext, index: number, error: unknown): StoredItemResult {
  const { code, message, fieldErrors, reason, internal } = classifyError(error);
  if (internal) ctx.logger.error({ err: error, index }, 'certificate batch item failed');
  return { index, uuid: null, status: 'failed', error: { code, message, ...(fieldErrors ? { errors: fieldErrors } : {}), ...(reason ? { reason } : {}) } };
}

/**
 * Creates (and, with `finish`, issues) one item through `CertificateService.create`, in its own
 * transaction; its failure is the item's result, not the batch's. An item whose certificate already
 * exists (a job resumed after a restart) reports that certificate.
 */
export async function issueItem(ctx: RequestContext, index: number, item: BatchItem): Promise<StoredItemResult> {
  const existing = await ctx.em.fork().findOne(Certificate, { uuid: item.uuid });
  if (existing) return { index, uuid: existing.uuid, status: effectiveStatus(existing) };
  try {
    const certificate = await certificates.create(ctx, item.input, item.uuid);
    return { index, uuid: certificate.uuid, status: effectiveStatus(certificate) };
  } catch (error) {
    return failure(ctx, index, error);
  }
}

/** One certificate on its own (a CLI import line): its input rules, then `issueItem`; any refusal is its result. */
export async function issueOne(ctx: RequestContext, index: number, input: CertificateInput): Promise<StoredItemResult> {
  const refused = await inputRules(input);
  if (Object.keys(refused).length > 0) return failure(ctx, index, invalid(refused));
  return issueItem(ctx, index, { uuid: uuidv7(), input });
}

/** Items as stored in a job's payload (JSON): dates come back as text. */
export function revivedItems(payload: unknown): BatchItem[] {
  return (payload as BatchItem[]).map(({ uuid, input }) => ({
    uuid,
    input: { ...input, expiresAt: input.expiresAt == null ? input.expiresAt : new Date(input.expiresAt) },
  }));
}
