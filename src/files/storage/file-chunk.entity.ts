import { Entity, PrimaryKey, Property } from '@mikro-orm/decorators/legacy';

/**
 * One slice of a file's content in the PostgreSQL storage driver, written as the upload streams in
 * and in the same transaction as the file record. Keyed by the blob key (the file's uuid); no foreign
 * key, because storage does not know what its blobs belong to.
 */
@Entity({ tableName: 'file_chunks' })
export class FileChunk {
  @PrimaryKey({ type: 'uuid' })
  fileUuid!: string;

  @PrimaryKey({ type: 'integer' })
  seq!: number;

  @Property({ type: 'blob', columnType: 'bytea' })
  data!: Buffer;
}
