import { type Opt } from '@mikro-orm/core';
import { Entity, Index, Property, Unique } from '@mikro-orm/decorators/legacy';
import { Field, Int, ObjectType } from 'type-graphql';
import { LiveFilterIndexes, TenantScopedEntity } from '../db/base.entity.js';
import { Node } from '../graphql/node.js';

/**
 * An uploaded (or server-generated) document: PDF, PNG or SVG. Content lives in blob storage under
 * the file's uuid; `hash` (SHA-256 of the content) deduplicates per tenant among live files.
 */
@ObjectType('File', {
  simpleResolvers: true,
  implements: Node,
  description: 'An uploaded or generated file of this tenant: a source PDF, a badge image, or a signed document.',
})
@Entity({ tableName: 'files' })
@Unique({ name: 'files_tenant_hash_live_unique', properties: ['tenant', 'hash'], where: '"deleted_at" is null' })
@Index({ name: 'files_tenant_used_at_index', properties: ['tenant', 'usedAt'] })
@Index({
  name: 'files_purge_index',
  expression: `create index "files_purge_index" on "files" ("deleted_at") where "deleted_at" is not null and "purged_at" is null`,
})
@LiveFilterIndexes('files', ['original_name', 'mime_type', 'extension', 'size', 'created_at', 'updated_at'])
export class StoredFile extends TenantScopedEntity {
  @Field({ description: 'The name the file was uploaded with (or renamed to).' })
  @Property({ length: 255 })
  originalName!: string;

  @Field({ description: 'Detected from the content: application/pdf, image/png or image/svg+xml.' })
  @Property({ length: 100 })
  mimeType!: string;

  @Field({ description: 'pdf, png or svg, from the detected type.' })
  @Property({ length: 10 })
  extension!: string;

  @Field(() => Int, { description: 'Bytes.' })
  @Property({ type: 'integer' })
  size!: number;

  @Field(() => Date, { nullable: true, description: 'Null while available; set while a certificate holds the file.' })
  @Property({ type: 'datetime', columnType: 'timestamptz(6)', nullable: true })
  usedAt?: Date | null;

  /** The certificate holding the file (a plain uuid column, no foreign key). */
  @Property({ type: 'uuid', nullable: true, hidden: true })
  usedByUuid?: (string & Opt) | null;

  /** SHA-256 of the content, lowercase hex; the download's ETag. Never exposed in the API. */
  @Property({ length: 64, hidden: true })
  hash!: string;

  /** The storage driver holding the content (`postgres`, `filesystem` or `s3`), so switching drivers keeps old files readable. */
  @Property({ length: 16, hidden: true })
  storage!: string;

  /** When the content of this deleted file was removed from storage (src/files/file-purge.ts). */
  @Property({ type: 'datetime', columnType: 'timestamptz(6)', nullable: true, hidden: true })
  purgedAt?: (Date & Opt) | null;
}
