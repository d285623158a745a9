import { type GraphQLInputType, parse } from 'graphql';
import { createSchema } from '../src/graphql/schema.js';
import { inputFieldErrors, variableFieldErrors } from '../src/graphql/variable-errors.js';
import { itemFieldErrors } from '../src/errors/domain-error.js';

const CREATE = parse('mutation Create($input: InstitutionInput!) { createInstitution(input: $input) { uuid } }');
const STUDENT = parse('mutation Create($input: StudentInput!) { createStudent(input: $input) { uuid } }');
const LIST = parse('query List($where: StudentWhere) { students(where: $where) { totalCount } }');

describe('variable errors', () => {
  it('words each refused input field from its type, in Laravel’s words', async () => {
    const schema = await createSchema();
    const found = variableFieldErrors(schema, CREATE, { input: { name: 7, country: 'BR', status: 'closed', isBadgesEnabled: 'yes', nickname: 'n' } });
    expect(found?.errors).toEqual({
      name: ['The name field must be a string.'],
      status: ['The selected status is invalid.'],
      isBadgesEnabled: ['The is badges enabled field must be true or false.'],
      nickname: ['The nickname field is not accepted here.'],
    });
    expect(found?.definitions.map((definition) => definition.variable.name.value)).toEqual(['input']);
  });

  it('reports missing, null and non-object inputs, and names where fields by their path', async () => {
    const schema = await createSchema();
    expect(variableFieldErrors(schema, CREATE, { input: { country: 'BR' } })?.errors).toEqual({ name: ['The name field is required.'] });
    expect(variableFieldErrors(schema, CREATE, { input: null })?.errors).toEqual({ input: ['The input field is required.'] });
    expect(variableFieldErrors(schema, CREATE, { input: 'text' })?.errors).toEqual({ input: ['The input field must be an object.'] });
    expect(variableFieldErrors(schema, LIST, { where: { email: { $ne: null } } })?.errors).toEqual({ 'where.email': ['The email field must be a string.'] });
  });

  it('reads nothing from the value’s text: a value that looks like a graphql-js message is just a wrong value', async () => {
    const schema = await createSchema();
    const lookalike = 'x" at "input.taxId"; Field "taxId" of required type "String!" was not provided.';
    expect(variableFieldErrors(schema, CREATE, { input: { name: 'N', country: [lookalike, lookalike] } })?.errors).toEqual({
      country: ['The country field must be a string.'],
    });
  });

  it('accepts valid variables and leaves absent ones to graphql-js (defaults, its own error)', async () => {
    const schema = await createSchema();
    expect(variableFieldErrors(schema, CREATE, { input: { name: 'N', country: 'BR', status: 'active' } })).toBeUndefined();
    expect(variableFieldErrors(schema, CREATE, {})).toBeUndefined();
    expect(variableFieldErrors(schema, LIST, { where: undefined })).toBeUndefined();
  });

  it('reports type refusals and input rules of every field together, in one pass', async () => {
    const schema = await createSchema();
    const found = variableFieldErrors(schema, STUDENT, { input: { name: 'x'.repeat(256), email: 'not-an-email', dateOfBirth: '2999-01-01', gender: 7 } });
    expect(found?.errors).toEqual({
      name: ['The name field must not be greater than 255 characters.'],
      email: ['The email field must be a valid email address.'],
      dateOfBirth: ['The date of birth field must be a date before today.'],
      gender: ['The gender field must be a string.'],
    });
    expect(variableFieldErrors(schema, STUDENT, { input: { email: 'bad' } })?.errors).toEqual({
      name: ['The name field is required.'],
      email: ['The email field must be a valid email address.'],
      dateOfBirth: ['The date of birth field is required.'],
    });
  });

  it('runs the rules comparing two fields of one input with the rest', async () => {
    const schema = await createSchema();
    const type = schema.getType('EnrollmentInput') as GraphQLInputType;
    const errors = inputFieldErrors(type, { courseUuid: 'c', enrolledAt: '2024-05-01', completedAt: '2024-04-01', grade: 8.333 });
    expect(errors).toEqual({
      studentUuid: ['The student uuid field is required when student external id is not present.'],
      grade: ['The grade field must have at most 2 decimal places.'],
      completedAt: ['The completed at field must be a date after or equal to the enrolled at.'],
    });
  });

  it('runs the rules of input objects written inline in the document, named by argument', async () => {
    const schema = await createSchema();
    const inline = parse('mutation { createInstitution(input: { name: "", country: "BR", website: "nope" }) { uuid } }');
    expect(variableFieldErrors(schema, inline, {})?.errors).toEqual({
      name: ['The name field is required.'],
      website: ['The website field must be a valid URL.'],
    });
  });

  it('reads literals as graphql-js does: an enum written as a string, a string for a number, a bad date, all named at once', async () => {
    const schema = await createSchema();
    const literal = parse(
      'mutation { createEnrollment(input: { studentUuid: "s", courseUuid: "c", enrolledAt: "garbage", completionStatus: "enrolled", grade: "high" }) { uuid } }',
    );
    expect(variableFieldErrors(schema, literal, {}, null, 'all')?.errors).toEqual({
      completionStatus: ['The selected completion status is invalid.'],
      grade: ['The grade field must be a number.'],
      enrolledAt: ['The enrolled at field must be a valid date.'],
    });
    const scalars = parse('query { students(first: "ten") { totalCount } }');
    expect(variableFieldErrors(schema, scalars, {}, null, 'all')?.errors).toEqual({ first: ['The first field must be an integer.'] });
    // Without inline objects, scalar literals are graphql-js's to judge (it did, before the guard runs).
    expect(variableFieldErrors(schema, scalars, {})).toBeUndefined();
  });

  it('keeps list positions in field names, and builds batch item keys the same way', async () => {
    const schema = await createSchema();
    const bulk = parse('mutation M($uuids: [ID!]!) { deleteStudents(uuids: $uuids) }');
    expect(variableFieldErrors(schema, bulk, { uuids: ['a', null] })?.errors).toEqual({ 'uuids.1': ['The uuids field is required.'] });
    expect(itemFieldErrors('items', 3, { email: ['The email field must be a valid email address.'] })).toEqual({
      'items.3.email': ['The email field must be a valid email address.'],
    });
  });
});
