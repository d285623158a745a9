import { type Opt, type Ref } from '@mikro-orm/core';
import { Entity, Index, ManyToOne, Property } from '@mikro-orm/decorators/legacy';
import { Field, ObjectType } from 'type-graphql';
import { LiveFilterIndexes, TenantScopedEntity } from '../db/base.entity.js';
import { Student } from '../students/student.entity.js';
import { Node } from '../graphql/node.js';

/** A student's public page listing chosen certificates, at `/p/{tenant}/{slug}` once public. */
@ObjectType({ simpleResolvers: true, implements: Node, description: "A student's public page listing chosen certificates." })
@Entity({ tableName: 'portfolio_pages' })
@Index({
  name: 'portfolio_pages_slug_unique',
  expression: 'create unique index "portfolio_pages_slug_unique" on "portfolio_pages" ("tenant_uuid", "slug") where "deleted_at" is null',
})
@LiveFilterIndexes('portfolio_pages', ['created_at', 'updated_at'])
export class PortfolioPage extends TenantScopedEntity {
  @ManyToOne(() => Student, { ref: true, index: true })
  student!: Ref<Student>;

  @Field({ description: 'Lower-case letters, digits and hyphens (3-64); unique within the tenant.' })
  @Property({ length: 64 })
  slug!: string;

  @Field(() => Boolean, { description: 'Shown at its public address; default `false`.' })
  @Property({ type: 'boolean' })
  isPublic: boolean & Opt = false;

  @Field(() => String, { nullable: true, description: 'Free text shown on the page.' })
  @Property({ type: 'text', nullable: true })
  bio?: string | null;
}
