/**
 * A typed GraphQL client in a few lines: the operation types come from `graphql-codegen`
 * (codegen.yml), so a wrong variable or a misread field fails to compile.
 */
import { readFileSync } from 'node:fs';
import type {
  CertificateQuery,
  CertificateQueryVariables,
  CreateInstitutionMutation,
  CreateInstitutionMutationVariables,
  InstitutionsQuery,
  InstitutionsQueryVariables,
} from './generated/graphql.js';

const OPERATIONS = readFileSync(new URL('./operations.graphql', import.meta.url), 'utf8');

interface Operations {
  CreateInstitution: [CreateInstitutionMutation, CreateInstitutionMutationVariables];
  Institutions: [InstitutionsQuery, InstitutionsQueryVariables];
  Certificate: [CertificateQuery, CertificateQueryVariables];
}

export function client(baseUrl: string, token: string, tenant: string) {
  return async function request<Name extends keyof Operations>(operationName: Name, variables: Operations[Name][1]): Promise<Operations[Name][0]> {
    const response = await fetch(`${baseUrl}/graphql`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'x-tenant': tenant, 'content-type': 'application/json' },
      body: JSON.stringify({ query: OPERATIONS, operationName, variables }),
    });
    const { data, errors } = (await response.json()) as { data: Operations[Name][0]; errors?: { message: string }[] };
    if (errors?.length) throw new Error(errors.map((error) => error.message).join('; '));
    return data;
  };
}

export async function example(baseUrl: string, token: string, tenant: string): Promise<string[]> {
  const request = client(baseUrl, token, tenant);
  const { createInstitution } = await request('CreateInstitution', { input: { name: 'Universidade Federal', country: 'BR' } });
  const status: 'active' | 'inactive' | 'suspended' = createInstitution.status;
  const { institutions } = await request('Institutions', { first: 10 });
  // @ts-expect-error: `country` is required by InstitutionInput
  await request('CreateInstitution', { input: { name: 'No country' } });
  // Single lookups are nullable: a missing record is null plus a NOT_FOUND error.
  const { certificate } = await request('Certificate', { uuid: createInstitution.uuid }).catch(() => ({ certificate: null }));
  return [status, ...institutions.nodes.map((institution) => institution.name), certificate?.recipient.name ?? 'no certificate'];
}
