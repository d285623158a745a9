import type { GraphQLSchema } from 'graphql';
import { resourceRoutes, type RestResource } from './resource.js';
import type { RestRoute } from './route.js';

const institutions: RestResource = {
  path: '/institutions',
  name: 'Institution',
  pluralName: 'Institutions',
  fields: 'uuid name legalName taxId country website networkOrganization status isBadgesEnabled badgeImageUuid createdAt updatedAt',
};

/** The route table: every REST path this service answers besides the token endpoint. */
export function routes(schema: GraphQLSchema, publicBaseUrl: string): RestRoute[] {
  return [
    {
      method: 'get',
      path: '/whoami',
      document: 'query Viewer { result: viewer { clientId tenant { identifier name } } }',
    },
    ...[institutions].flatMap((resource) => resourceRoutes(resource, schema, publicBaseUrl)),
  ];
}
