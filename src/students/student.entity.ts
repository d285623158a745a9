import { Entity, Index, Property } from '@mikro-orm/decorators/legacy';
import { Field, ObjectType } from 'type-graphql';
import { externalIdIndex, ExternallyIdentifiedEntity, LiveFilterIndexes, liveListIndex, liveSortIndex } from '../db/base.entity.js';
import { DateScalar } from '../graphql/scalars.js';
import { Node } from '../graphql/node.js';

/** A certificate recipient, registered per tenant; the email (kept lowercase) is unique among live students. */
@ObjectType({ simpleResolvers: true, implements: Node, description: 'A person who enrolls in courses and receives certificates.' })
@Entity({ tableName: 'students' })
@Index(liveListIndex('students'))
@Index(liveSortIndex('students_growth_name_index', 'students', ['tenant_uuid', 'name', 'uuid']))
@Index(liveSortIndex('students_growth_created_index', 'students', ['tenant_uuid', 'created_at', 'uuid']))
@Index(externalIdIndex('students'))
@Index({
  name: 'students_email_unique',
  expression: 'create unique index "students_email_unique" on "students" ("tenant_uuid", "email") where "deleted_at" is null',
})
@LiveFilterIndexes('students', ['gender', 'social_name', 'updated_at'])
export class Student extends ExternallyIdentifiedEntity {
  @Field({ description: 'Full legal name.' })
  @Property({ length: 255 })
  name!: string;

  @Field({ description: 'Unique within the tenant; stored and compared lowercase.' })
  @Property({ length: 255 })
  email!: string;

  @Field(() => DateScalar, { description: '`YYYY-MM-DD`.' })
  @Property({ type: 'date' })
  dateOfBirth!: string;

  @Field(() => String, { nullable: true, description: 'As the student declares it; free text.' })
  @Property({ length: 50, nullable: true })
  gender?: string | null;

  @Field(() => String, { nullable: true, description: 'Preferred name, printed on certificates when set.' })
  @Property({ length: 255, nullable: true })
  socialName?: string | null;
}
