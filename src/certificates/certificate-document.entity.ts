import { type Ref } from '@mikro-orm/core';
import { Entity, Enum, ManyToOne } from '@mikro-orm/decorators/legacy';
import { registerEnumType } from 'type-graphql';
import { TenantScopedEntity } from '../db/base.entity.js';
import { StoredFile } from '../files/file.entity.js';
import { Certificate } from './certificate.entity.js';

export enum CertificateFileType {
  source = 'source',
  certificate = 'certificate',
  transcript = 'transcript',
}
registerEnumType(CertificateFileType, {
  name: 'CertificateFileType',
  description: 'Which document of a certificate a file is.',
  valuesConfig: {
    source: { description: 'The uploaded PDF, as received.' },
    certificate: { description: 'The uploaded PDF, signed by the institution.' },
    transcript: { description: 'The generated transcript, signed.' },
  },
});

/** A document issuance produced for a certificate: its signed PDF and its signed transcript. */
@Entity({ tableName: 'certificate_documents' })
export class CertificateDocument extends TenantScopedEntity {
  @ManyToOne(() => Certificate, { ref: true, index: true })
  certificate!: Ref<Certificate>;

  @ManyToOne(() => StoredFile, { ref: true, index: true })
  file!: Ref<StoredFile>;

  @Enum({ items: () => CertificateFileType, nativeEnumName: 'certificate_file_type' })
  type!: CertificateFileType;
}
