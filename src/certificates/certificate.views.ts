import { Field, ID, Int, ObjectType } from 'type-graphql';
import { DateScalar } from '../graphql/scalars.js';
import { CertificateFileType } from './certificate-document.entity.js';

/** The person a certificate names: the snapshot taken at issuance, or the student as they are for a draft. */
@ObjectType({ simpleResolvers: true, description: 'The student as frozen on the certificate when it was issued.' })
export class CertificateRecipient {
  @Field(() => ID, { description: 'The student’s uuid.' })
  uuid!: string;

  @Field({ description: 'The name shown and printed: socialName when set, else name.' })
  displayName!: string;

  @Field({ description: 'Legal name.' })
  name!: string;

  @Field(() => String, { nullable: true, description: 'Preferred name; printed instead of the name when set.' })
  socialName!: string | null;

  @Field({ description: 'Email address at issuance.' })
  email!: string;

  @Field(() => DateScalar, { description: '`YYYY-MM-DD`.' })
  dateOfBirth!: string;
}

/** A document of a certificate: the uploaded source, or the signed certificate and transcript issuance made. */
@ObjectType({ simpleResolvers: true, description: 'A file of a certificate: its uploaded source, the signed certificate or the signed transcript.' })
export class CertificateFile {
  @Field(() => CertificateFileType, { description: 'Which document of the certificate this is.' })
  type!: CertificateFileType;

  @Field(() => ID, { description: 'The file’s uuid.' })
  uuid!: string;

  @Field({ description: 'File name, as uploaded or generated.' })
  originalName!: string;

  @Field({ description: 'Detected content type.' })
  mimeType!: string;

  @Field({ description: 'File extension without the dot.' })
  extension!: string;

  @Field(() => Int, { description: 'Size in bytes.' })
  size!: number;

  @Field({ description: 'Absolute download URL; public.' })
  file!: string;

  @Field(() => Date, { description: 'When the file was stored.' })
  createdAt!: Date;
}
