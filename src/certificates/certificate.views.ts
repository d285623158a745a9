import { Field, ID, Int, ObjectType } from 'type-graphql';
import { DateScalar } from '../graphql/scalars.js';
import { CertificateFileType } from './certificate-document.entity.js';

/** The person a certificate names: the snapshot taken at issuance, or the student as they are for a draft. */
@ObjectType({ simpleResolvers: true })
export class CertificateRecipient {
  @Field(() => ID, { description: 'The student’s uuid.' })
  uuid!: string;

  @Field({ description: 'The name shown and printed: socialName when set, else name.' })
  displayName!: string;

  @Field()
  name!: string;

  @Field(() => String, { nullable: true })
  socialName!: string | null;

  @Field()
  email!: string;

  @Field(() => DateScalar)
  dateOfBirth!: string;
}

/** A document of a certificate: the uploaded source, or the signed certificate and transcript issuance made. */
@ObjectType({ simpleResolvers: true })
export class CertificateFile {
  @Field(() => CertificateFileType)
  type!: CertificateFileType;

  @Field(() => ID, { description: 'The file’s uuid.' })
  uuid!: string;

  @Field()
  originalName!: string;

  @Field()
  mimeType!: string;

  @Field()
  extension!: string;

  @Field(() => Int)
  size!: number;

  @Field({ description: 'Absolute download URL; public.' })
  file!: string;

  @Field(() => Date)
  createdAt!: Date;
}
