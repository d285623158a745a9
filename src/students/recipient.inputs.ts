import { Field, InputType } from 'type-graphql';
import { DateScalar } from '../graphql/scalars.js';
import { BeforeToday, Email, MaxChars, NotBlank, Nullable } from '../graphql/validators.js';
import { ExternalIdInput } from '../resources/external-id.js';

@InputType({
  description:
    'The person a certificate is issued to, instead of `studentUuid`: the student with this `externalId`, else with this email, else a new student registered in the same transaction.',
})
export class RecipientInput {
  @Field({ description: 'Finds the student (case-insensitive) or becomes the new student’s email.' })
  @Email()
  @MaxChars(255)
  email!: string;

  @Field({ description: 'Full legal name of a new student; an existing student keeps theirs.' })
  @NotBlank()
  @MaxChars(255)
  name!: string;

  @Field(() => DateScalar, { nullable: true, description: '`YYYY-MM-DD`, in the past; required when the recipient is not a student yet.' })
  @Nullable()
  @BeforeToday()
  dateOfBirth?: string | null;

  @ExternalIdInput('The student’s external id: looked up first; a new student, or an existing one without an external id, takes it.')
  externalId?: string | null;
}
