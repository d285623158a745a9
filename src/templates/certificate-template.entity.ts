import { type Opt, type Ref } from '@mikro-orm/core';
import { Entity, Enum, Index, ManyToOne, Property } from '@mikro-orm/decorators/legacy';
import { GraphQLJSONObject } from 'graphql-scalars';
import { Field, ObjectType, registerEnumType } from 'type-graphql';
import { LiveFilterIndexes, liveListIndex, TenantScopedEntity } from '../db/base.entity.js';
import { Institution } from '../institutions/institution.entity.js';
import { Node } from '../graphql/node.js';

export enum TemplateStatus {
  active = 'active',
  inactive = 'inactive',
}
registerEnumType(TemplateStatus, {
  name: 'TemplateStatus',
  description: 'Whether a template may be used for new certificates.',
  valuesConfig: { active: { description: 'Usable.' }, inactive: { description: 'Kept for existing certificates only.' } },
});

/** The visual design certificates of an institution use; at most one per institution is the default. */
@ObjectType({
  simpleResolvers: true,
  implements: Node,
  description: 'The visual design certificates of an institution use; at most one per institution is the default.',
})
@Entity({ tableName: 'certificate_templates' })
@Index(liveListIndex('certificate_templates'))
@Index({
  name: 'certificate_templates_default_unique',
  expression:
    'create unique index "certificate_templates_default_unique" on "certificate_templates" ("institution_uuid") where "is_default" and "deleted_at" is null',
})
@LiveFilterIndexes('certificate_templates', ['name', 'version', 'status', 'created_at', 'updated_at'])
export class CertificateTemplate extends TenantScopedEntity {
  @ManyToOne(() => Institution, { ref: true, index: true })
  institution!: Ref<Institution>;

  @Field({ description: 'Template name.' })
  @Property({ length: 255 })
  name!: string;

  @Field({ description: 'Version identifier of the design.' })
  @Property({ length: 50 })
  version!: string;

  @Field({ description: 'Internal path of the template document.' })
  @Property({ length: 1024 })
  path!: string;

  @Field(() => String, { nullable: true, description: 'Path of a preview image of the design.' })
  @Property({ length: 1024, nullable: true })
  previewImagePath?: string | null;

  /** Lazy: read by the field that shows it, within the answer's byte budget (db/rows.ts); populate it to use it. */
  @Field(() => GraphQLJSONObject, { nullable: true, description: 'Design-tool configuration, stored as given.' })
  @Property({ type: 'json', nullable: true, lazy: true })
  designConfig?: Record<string, unknown> | null;

  /** Bytes of `design_config` as PostgreSQL writes it out, kept by the database: what showing it costs the answer's budget. */
  @Property({ type: 'integer', nullable: true, generated: '(octet_length((design_config)::text)) stored' })
  designConfigBytes?: (number | null) & Opt;

  @Field(() => Boolean, { description: 'The template certificates of this institution get when none is named.' })
  @Property({ type: 'boolean' })
  isDefault: boolean & Opt = false;

  @Field(() => TemplateStatus, { description: 'Whether the template may be used for new certificates.' })
  @Enum({ items: () => TemplateStatus, nativeEnumName: 'template_status' })
  status: TemplateStatus & Opt = TemplateStatus.active;
}
