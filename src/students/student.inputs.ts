import { Field, InputType } from 'type-graphql';
import { DateScalar } from '../graphql/scalars.js';
import { ListArgsType } from '../graphql/connection.js';
import { BeforeToday, Email, MaxChars, NotBlank, Nullable, Present } from '../graphql/validators.js';
import { EXTERNAL_ID_DESCRIPTION, ExternalIdFilter, ExternalIdInput } from '../resources/external-id.js';

@InputType({ description: 'The fields to change (PATCH); absent fields keep their value.' })
export class UpdateStudentInput {
  @ExternalIdInput(EXTERNAL_ID_DESCRIPTION)
  externalId?: string | null;

  @Field({ nullable: true, description: 'Full legal name.' })
  @Present()
  @NotBlank()
  @MaxChars(255)
  name?: string;

  @Field({ nullable: true, description: 'Unique within the tenant, case-insensitive.' })
  @Present()
  @Email()
  @MaxChars(255)
  email?: string;

  @Field(() => DateScalar, { nullable: true, description: '`YYYY-MM-DD`, in the past.' })
  @Present()
  @BeforeToday()
  dateOfBirth?: string;

  @Field(() => String, { nullable: true, description: 'As the student declares it; free text.' })
  @Nullable()
  @MaxChars(50)
  gender?: string | null;

  @Field(() => String, { nullable: true, description: 'Preferred name, printed on certificates when set.' })
  @Nullable()
  @MaxChars(255)
  socialName?: string | null;
}

@InputType({ description: 'A new student.' })
export class StudentInput extends UpdateStudentInput {
  @Field({ description: 'Full legal name.' })
  declare name: string;

  @Field({ description: 'Unique within the tenant; stored and compared lowercase.' })
  declare email: string;

  @Field(() => DateScalar, { description: '`YYYY-MM-DD`.' })
  declare dateOfBirth: string;
}

@InputType({ description: 'Equality filters on students.' })
export class StudentWhere {
  @ExternalIdFilter()
  externalId?: string;

  @Field({ nullable: true, description: 'Case-insensitive. REST also accepts `where[user][email]`.' })
  email?: string;

  @Field({ nullable: true, description: 'Only records whose name equals this.' })
  name?: string;

  @Field(() => String, { nullable: true, description: 'Only records whose gender equals this.' })
  gender?: string | null;

  @Field(() => String, { nullable: true, description: 'Only records whose social name equals this.' })
  socialName?: string | null;
}

export const StudentListArgs = ListArgsType('Student', StudentWhere, ['name', 'email', 'date_of_birth', 'created_at', 'updated_at']);
