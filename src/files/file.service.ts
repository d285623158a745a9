import type { Readable } from 'node:stream';
import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { PublicContext, RequestContext } from '../context/request-context.js';
import { requireRelated } from '../db/lookup.js';
import { acrossTenants, tenantOf } from '../db/tenant-scope.js';
import { isUuid, uuidv7 } from '../db/uuid.js';
import { humanize } from '../errors/humanize.js';
import { conflict, invalid } from '../errors/domain-error.js';
import { ResourceService } from '../resources/resource.service.js';
import { StoredFile } from './file.entity.js';
import { fileUploadedEvent } from '../webhooks/webhook-events.js';
import { webhookMessagesInsert } from '../webhooks/webhook.repository.js';
import type { FileInput } from './file.inputs.js';
import { intake, type IncomingFile, type Intake } from './file-intake.js';
import { insertAllUnlessDuplicate, insertUnlessDuplicate, markUnused, markUsed, type NewFileRecord, readRecords } from './file.repository.js';
import { firstHolder, holderMessage } from './file-holders.js';
import { enforceQuota } from './storage-quota.js';
import type { FileRuntime } from './file-runtime.js';
import type { BlobKey } from './storage/blob-storage.js';
import { PDF, PNG, SVG } from './file-type.js';
import { tooManyFiles } from './upload-limits.js';

/** What the file operations need of a context: the transaction's EntityManager and the file runtime. */
export type FileContext = Pick<PublicContext, 'em' | 'files'>;

/** A client's file name as shown and downloaded: no path, no control characters, at most 255 characters. */
export function cleanFileName(raw: string): string {
  const base = raw.split(/[\\/]/).pop() ?? '';
  // eslint-disable-next-line no-control-regex -- stripping control characters is the point
  return Array.from(base.replace(/[\u0000-\u001f\u007f]/g, '').trim())
    .slice(0, 255)
    .join('');
}

/** Content in storage under a fresh key, not yet recorded. */
interface StoredContent extends Intake {
  key: string;
  name: string;
}

/**
 * Streams one file into storage, inside `em`'s transaction. `written` collects blob keys so a
 * rollback can clean storage outside the database.
 */
async function storeContent(em: EntityManager, runtime: FileRuntime, file: IncomingFile, written: BlobKey[], maxBytes: number): Promise<StoredContent> {
  const key = uuidv7();
  const blob = { tenant: tenantOf(em), uuid: key };
  written.push(blob);
  const content = await intake(file, await runtime.storage.create(em, blob, file.facts?.size), maxBytes);
  return { ...content, key, name: cleanFileName(file.filename) || `file.${content.type.extension}` };
}

/**
 * Writes (or finds) the record of stored content; a duplicate's copy leaves storage. Returns the uuid
 * holding the content. With `lockTenant` the insert takes the quota's tenant lock first.
 */
async function recordContent(em: EntityManager, runtime: FileRuntime, content: StoredContent, lockTenant: boolean): Promise<string> {
  const { key, name, type, size, hash } = content;
  const uuid = await insertUnlessDuplicate(em, { uuid: key, originalName: name, type, size, hash, storage: runtime.storage.name }, { lockTenant });
  if (uuid !== key) await runtime.storage.remove(em, { tenant: tenantOf(em), uuid: key });
  return uuid;
}

/** Runs `work`; when it fails, storage outside the database forgets what it wrote. */
async function discardOnFailure<T>(runtime: FileRuntime, work: (written: BlobKey[]) => Promise<T>): Promise<T> {
  const written: BlobKey[] = [];
  try {
    return await work(written);
  } catch (error) {
    await runtime.storage.discard(written).catch(() => undefined);
    throw error;
  }
}

/** Where a stored file's content is kept. */
export function blobKeyOf(file: StoredFile): BlobKey {
  return { tenant: file.tenant.uuid, uuid: file.uuid };
}

/** Bytes the service made, to be stored as a file (see `FileService.storeGenerated`). */
export interface GeneratedFile {
  bytes: Uint8Array;
  originalName: string;
  mimeType: string;
  usedByUuid?: string;
}

/** Why a file cannot be taken by a certificate: not a live file of the tenant, not a PDF, or held by another. */
function takeRefusal(file: StoredFile | null): Error {
  if (!file) return invalid({ fileUuid: ['The selected file uuid is invalid.'] });
  if (file.mimeType !== PDF.mimeType) return invalid({ fileUuid: ['The file uuid must be a file of type: pdf.'] });
  const holder = file.usedByUuid;
  if (!holder) return invalid({ fileUuid: ['The file uuid has already been used.'] });
  return invalid({ fileUuid: [`The file uuid has already been used by certificate ${holder}.`] }, 'FILE_ALREADY_USED', { usedByCertificateUuid: holder });
}

/** Files: uploads (typed by content, deduplicated per tenant, all or nothing), metadata edits, use by certificates. */
export class FileService extends ResourceService<StoredFile, FileInput> {
  protected readonly entity = StoredFile;
  protected readonly label = 'File';

  protected async apply(_ctx: RequestContext, row: StoredFile, input: Partial<FileInput>): Promise<void> {
    if (input.originalName === undefined) return;
    const name = cleanFileName(input.originalName);
    if (!name) throw invalid({ originalName: ['The original name field is required.'] });
    row.originalName = name;
  }

  /**
   * Stores every file of one request or none: a file of another type (415) or over the limit (413)
   * rolls back the others. Content already stored live in the tenant returns its existing record.
   */
  async upload(ctx: RequestContext, incoming: Array<() => Promise<IncomingFile>>): Promise<StoredFile[]> {
    const runtime = ctx.files;
    const { maxFiles, maxFileBytes, quotaBytes } = runtime.settings;
    if (incoming.length === 0) throw invalid({ files: ['The files field is required.'] });
    if (incoming.length > maxFiles) throw tooManyFiles(maxFiles);
    // Every part is received before the transaction opens: a slow client never holds a database connection.
    const received: IncomingFile[] = [];
    for (const next of incoming) received.push(await next());
    return discardOnFailure(runtime, (written) =>
      ctx.em.transactional(async (tx) => {
        const contents: StoredContent[] = [];
        for (const file of received) contents.push(await storeContent(tx, runtime, file, written, maxFileBytes));
        // Records after all content: the first one locks the tenant for the quota, which is held from here to the commit only.
        const uuids: string[] = [];
        for (const content of contents) uuids.push(await recordContent(tx, runtime, content, quotaBytes > 0));
        // The new files' events are known from their content: written in the same round trip as the read.
        const fresh = contents.filter((content) => uuids.includes(content.key));
        const events = fresh.map(({ key, name, type, size, hash }) =>
          fileUploadedEvent({ uuid: key, originalName: name, mimeType: type.mimeType, size, hash }),
        );
        const { records, tenantBytes } = await readRecords(tx, [...new Set(uuids)], {
          tenantBytes: quotaBytes > 0,
          alongside: events.length > 0 ? webhookMessagesInsert(events, tenantOf(tx)) : undefined,
        });
        if (quotaBytes > 0 && fresh.length > 0) enforceQuota(quotaBytes, tenantBytes);
        const byUuid = new Map(records.map((record) => [record.uuid, record]));
        return uuids.map((uuid) => byUuid.get(uuid)!);
      }),
    );
  }

  /**
   * Stores bytes the service produced (signed PDFs, transcripts) as files of the tenant `ctx.em` is
   * scoped to, in the caller's transaction (no savepoint: the caller's failure rolls it back with the
   * rest), their records in one statement that returns them (nothing is read back). With
   * `usedByUuid` they are born in use.
   */
  storeGenerated(ctx: FileContext, generated: GeneratedFile[]): Promise<StoredFile[]> {
    if (!ctx.em.isInTransaction()) throw new Error('generated files are stored inside the transaction of the change that produced them');
    return discardOnFailure(ctx.files, async (written) => {
      const records: NewFileRecord[] = [];
      for (const file of generated) {
        const expected = [PDF, PNG, SVG].find((type) => type.mimeType === file.mimeType);
        if (!expected) throw new Error(`cannot store generated ${file.mimeType}`);
        const key = uuidv7();
        const blob = { tenant: tenantOf(ctx.em), uuid: key };
        written.push(blob);
        const { hash, size, type } = await intake(
          { filename: file.originalName, content: [file.bytes] },
          await ctx.files.storage.create(ctx.em, blob, file.bytes.byteLength),
          Infinity,
        );
        if (type !== expected) throw new Error(`generated content is ${type.mimeType}, not ${expected.mimeType}`);
        records.push({
          uuid: key,
          originalName: cleanFileName(file.originalName),
          type,
          size,
          hash,
          storage: ctx.files.storage.name,
          usedByUuid: file.usedByUuid,
        });
      }
      const inserted = new Map((await insertAllUnlessDuplicate(ctx.em, records)).map((row) => [row.uuid as string, row]));
      const stored: StoredFile[] = [];
      for (const record of records) {
        const row = inserted.get(record.uuid);
        if (row) {
          stored.push(ctx.em.map(StoredFile, row));
          continue;
        }
        // The same bytes already stored live in the tenant (never for signed documents, which carry their own time).
        await ctx.files.storage.remove(ctx.em, { tenant: tenantOf(ctx.em), uuid: record.uuid });
        stored.push(await ctx.em.findOneOrFail(StoredFile, { uuid: await insertUnlessDuplicate(ctx.em, record) }));
      }
      return stored;
    });
  }

  /**
   * Attaches an unused live PDF of the tenant to a certificate and returns it as it now is; of
   * concurrent takers exactly one wins, the others get a 422 on `fileUuid`. Idempotent for the
   * certificate already holding it.
   */
  async take({ em }: Pick<PublicContext, 'em'>, fileUuid: string, certificateUuid: string): Promise<StoredFile> {
    const taken = isUuid(fileUuid) ? await markUsed(em, fileUuid, certificateUuid) : undefined;
    if (taken) return em.map(StoredFile, taken);
    throw takeRefusal(isUuid(fileUuid) ? await em.findOne(StoredFile, { uuid: fileUuid }, { refresh: true }) : null);
  }

  /**
   * The file `take` would attach, read without taking it, with the same 422s: issuance checks it
   * before making documents. Only `take`, in the writing transaction, decides between racing takers.
   */
  async takeable({ em }: Pick<PublicContext, 'em'>, fileUuid: string, certificateUuid: string): Promise<StoredFile> {
    const file = isUuid(fileUuid) ? await em.findOne(StoredFile, { uuid: fileUuid }) : null;
    if (file && file.mimeType === PDF.mimeType && (!file.usedAt || file.usedByUuid === certificateUuid)) return file;
    throw takeRefusal(file);
  }

  /** Frees a file again (certificate deleted or revoked); with `certificateUuid`, only if that certificate holds it. */
  async release({ em }: Pick<PublicContext, 'em'>, fileUuid: string, certificateUuid?: string): Promise<void> {
    if (await markUnused(em, fileUuid, certificateUuid)) await this.refreshManaged(em, fileUuid);
  }

  /** The stored content of a file, streamed from whichever driver holds it. */
  open({ em, files }: FileContext, file: StoredFile): Promise<Readable> {
    return files.driver(file.storage).open(em, blobKeyOf(file), file.size);
  }

  /** A short-lived address of the content in the object store, when its driver offers downloads straight from there. */
  directUrl({ files }: FileContext, file: StoredFile, contentDisposition: string): Promise<string | undefined> {
    const direct = files.driver(file.storage).directUrl;
    return direct ? direct(blobKeyOf(file), { contentType: file.mimeType, contentDisposition }) : Promise.resolve(undefined);
  }

  /** The whole content of a (server-size) file in memory: badge images, sources to sign. */
  async read(ctx: FileContext, file: StoredFile): Promise<Buffer> {
    const chunks: Buffer[] = [];
    for await (const chunk of await this.open(ctx, file)) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks);
  }

  /**
   * 422 on `field` unless it names a live PNG or SVG file of the tenant (badge images). Read FOR SHARE,
   * in the caller's transaction: a concurrent deletion of the file waits for it (file-holders.ts).
   */
  async requireImage({ em }: Pick<PublicContext, 'em'>, uuid: string, field: string): Promise<StoredFile> {
    const file = await requireRelated(em, StoredFile, uuid, field, { lockMode: LockMode.PESSIMISTIC_READ });
    if (file.mimeType !== PNG.mimeType && file.mimeType !== SVG.mimeType)
      throw invalid({ [field]: [`The ${humanize(field)} must be a file of type: png, svg.`] });
    return file;
  }

  /** Deleting is refused while anything holds the file (file-holders.ts); the row lock keeps a concurrent `take` or badge image out. */
  protected async beforeDelete(ctx: RequestContext, rows: StoredFile[]): Promise<void> {
    const locked = await ctx.em.find(StoredFile, { uuid: { $in: rows.map((row) => row.uuid) } }, { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true });
    const holder = await firstHolder(ctx.em, locked);
    if (holder) throw conflict(holderMessage(holder));
  }

  /** Raw updates bypass the identity map: reload a copy this EntityManager already holds. */
  private async refreshManaged(em: EntityManager, uuid: string): Promise<void> {
    const managed = em.getUnitOfWork().getById(StoredFile, uuid);
    if (managed) await em.refresh(managed);
  }
}

export const files = new FileService();

/**
 * The one lookup that crosses tenants: the public download finds a live file by uuid alone,
 * with the tenant filter explicitly off.
 */
export function findFileAcrossTenants({ em }: Pick<PublicContext, 'em'>, uuid: string): Promise<StoredFile | null> {
  if (!isUuid(uuid)) return Promise.resolve(null);
  return em.findOne(StoredFile, { uuid }, acrossTenants());
}
