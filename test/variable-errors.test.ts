import { parse } from 'graphql';
import { createSchema } from '../src/graphql/schema.js';
import { variableFieldErrors } from '../src/graphql/variable-errors.js';

const CREATE = parse('mutation Create($input: InstitutionInput!) { createInstitution(input: $input) { uuid } }');
const LIST = parse('query List($where: StudentWhere) { students(where: $where) { totalCount } }');

describe('variable errors', () => {
  it('words each refused input field from its type, in Laravel’s words', async () => {
    const schema = await createSchema();
    const found = variableFieldErrors(schema, CREATE, { input: { name: 7, country: 'BR', status: 'closed', isBadgesEnabled: 'yes', nickname: 'n' } });
    expect(found?.errors).toEqual({
      name: ['The name must be a string.'],
      status: ['The selected status is invalid.'],
      isBadgesEnabled: ['The is badges enabled must be true or false.'],
      nickname: ['The nickname field is not accepted here.'],
    });
    expect(found?.definitions.map((definition) => definition.variable.name.value)).toEqual(['input']);
  });

  it('reports missing, null and non-object inputs, and names where fields by their path', async () => {
    const schema = await createSchema();
    expect(variableFieldErrors(schema, CREATE, { input: { country: 'BR' } })?.errors).toEqual({ name: ['The name field is required.'] });
    expect(variableFieldErrors(schema, CREATE, { input: null })?.errors).toEqual({ input: ['The input field is required.'] });
    expect(variableFieldErrors(schema, CREATE, { input: 'text' })?.errors).toEqual({ input: ['The input must be an object.'] });
    expect(variableFieldErrors(schema, LIST, { where: { email: { $ne: null } } })?.errors).toEqual({ 'where.email': ['The email must be a string.'] });
  });

  it('reads nothing from the value’s text: a value that looks like a graphql-js message is just a wrong value', async () => {
    const schema = await createSchema();
    const lookalike = 'x" at "input.taxId"; Field "taxId" of required type "String!" was not provided.';
    expect(variableFieldErrors(schema, CREATE, { input: { name: 'N', country: [lookalike, lookalike] } })?.errors).toEqual({
      country: ['The country must be a string.'],
    });
  });

  it('accepts valid variables and leaves absent ones to graphql-js (defaults, its own error)', async () => {
    const schema = await createSchema();
    expect(variableFieldErrors(schema, CREATE, { input: { name: 'N', country: 'BR', status: 'active' } })).toBeUndefined();
    expect(variableFieldErrors(schema, CREATE, {})).toBeUndefined();
    expect(variableFieldErrors(schema, LIST, { where: undefined })).toBeUndefined();
  });
});
