import { type Opt } from '@mikro-orm/core';
import { Entity, Enum, Index, Property } from '@mikro-orm/decorators/legacy';
import { Field, ID, ObjectType, registerEnumType } from 'type-graphql';
import { externalIdIndex, ExternallyIdentifiedEntity, LiveFilterIndexes, liveListIndex } from '../db/base.entity.js';
import { Node } from '../graphql/node.js';

export enum InstitutionStatus {
  active = 'active',
  inactive = 'inactive',
  suspended = 'suspended',
}
registerEnumType(InstitutionStatus, {
  name: 'InstitutionStatus',
  description: 'Whether an institution is in use.',
  valuesConfig: {
    active: { description: 'In use.' },
    inactive: { description: 'No longer in use.' },
    suspended: { description: 'Temporarily barred from issuing.' },
  },
});

/** The issuing body: courses, modules, templates and certificates belong to one. */
@ObjectType({
  simpleResolvers: true,
  implements: Node,
  description: 'A school, university or training provider that issues certificates; it signs them with its own key.',
})
@Entity({ tableName: 'institutions' })
@Index(liveListIndex('institutions'))
@Index(externalIdIndex('institutions'))
@LiveFilterIndexes('institutions', ['name', 'country', 'tax_id', 'status', 'created_at', 'updated_at'])
export class Institution extends ExternallyIdentifiedEntity {
  @Field({ description: 'Display name, printed on certificates.' })
  @Property({ length: 255 })
  name!: string;

  @Field(() => String, { nullable: true, description: 'Official legal entity name.' })
  @Property({ length: 255, nullable: true })
  legalName?: string | null;

  @Field(() => String, { nullable: true, description: 'Tax registration number.' })
  @Property({ length: 64, nullable: true })
  taxId?: string | null;

  @Field({ description: 'Country of registration.' })
  @Property({ length: 100 })
  country!: string;

  @Field(() => String, { nullable: true, description: 'Public website URL.' })
  @Property({ length: 2048, nullable: true })
  website?: string | null;

  @Field(() => String, { nullable: true, description: 'Contact e-mail, published as the Open Badges issuer email; required while badges are enabled.' })
  @Property({ length: 255, nullable: true })
  email?: string | null;

  @Field(() => String, { nullable: true, description: 'Professional-network organization slug.' })
  @Property({ length: 255, nullable: true })
  networkOrganization?: string | null;

  @Field(() => InstitutionStatus, { description: 'Whether the institution is in use.' })
  @Enum({ items: () => InstitutionStatus, nativeEnumName: 'institution_status' })
  status: InstitutionStatus & Opt = InstitutionStatus.active;

  @Field(() => Boolean, { description: 'Whether Open Badges 2.0 are issued with its certificates.' })
  @Property({ type: 'boolean' })
  isBadgesEnabled: boolean & Opt = false;

  @Field(() => Boolean, { description: "Whether the public verification page shows the recipient's final grade (from the enrollment)." })
  @Property({ type: 'boolean' })
  isGradePublic: boolean & Opt = false;

  @Field(() => Boolean, {
    description:
      "Whether the wallet offer in a certificate's issuance e-mail asks for a PIN (OpenID4VCI tx_code), which the e-mail carries apart from the offer.",
  })
  @Property({ type: 'boolean' })
  isWalletPinRequired: boolean & Opt = false;

  @Field(() => ID, { nullable: true, description: 'Uploaded file used as the badge image; required while badges are enabled.' })
  @Property({ type: 'uuid', nullable: true })
  badgeImageUuid?: string | null;
}
