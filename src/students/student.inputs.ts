import { Field, InputType } from 'type-graphql';
import { DateScalar } from '../graphql/scalars.js';
import { ListArgsType } from '../graphql/list-args.js';
import { BeforeToday, Email, MaxChars, NotBlank, Nullable, Present } from '../graphql/validators.js';

@InputType({ description: 'The fields to change (PATCH); absent fields keep their value.' })
export class UpdateStudentInput {
  @Field({ nullable: true })
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

  @Field(() => String, { nullable: true })
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
  @Field()
  declare name: string;

  @Field()
  declare email: string;

  @Field(() => DateScalar)
  declare dateOfBirth: string;
}

@InputType()
export class StudentWhere {
  @Field({ nullable: true, description: 'Case-insensitive. REST also accepts `where[user][email]`.' })
  email?: string;

  @Field({ nullable: true })
  name?: string;

  @Field(() => String, { nullable: true })
  gender?: string | null;

  @Field(() => String, { nullable: true })
  socialName?: string | null;
}

export const StudentListArgs = ListArgsType('Student', StudentWhere, ['name', 'email', 'date_of_birth', 'created_at', 'updated_at']);
