import type { GraphQLSchema } from 'graphql';
import { buildOperation } from './operation.js';
import { bodyInput } from './resource.js';
import type { RestRoute } from './route.js';
import { fields, nest } from './selection.js';

const OFFER = fields('uuid certificateUuid credentialOfferUri offerUrl txCode txCodeRequired expiresAt redeemedAt revokedAt claims createdAt');
const OFFERS = '/certificates/:certificateUuid/offers';

/** OpenID4VCI credential offers of a certificate (docs/wallets.md): made, listed, revoked. */
export function offerRoutes(schema: GraphQLSchema): RestRoute[] {
  return [
    {
      method: 'post',
      path: OFFERS,
      status: 201,
      // Offers have no address of their own: the Location is the certificate's list of offers, where the new one is first.
      location: OFFERS,
      document: buildOperation(schema, {
        type: 'mutation',
        name: 'CreateCredentialOffer',
        route: `POST ${OFFERS}`,
        fields: [{ field: 'createCredentialOffer', alias: 'result', selection: OFFER }],
      }),
      variables: (req) => ({ certificateUuid: req.params.certificateUuid, input: bodyInput(req, schema, 'createCredentialOffer') }),
    },
    {
      method: 'get',
      path: OFFERS,
      document: buildOperation(schema, {
        type: 'query',
        name: 'CredentialOffers',
        route: `GET ${OFFERS}`,
        fields: [{ field: 'certificate', alias: 'result', selection: [nest('credentialOffers', OFFER)] }],
      }),
      variables: (req) => ({ uuid: req.params.certificateUuid }),
      present: (result) => ({ data: (result as { credential_offers: unknown[] }).credential_offers }),
    },
    {
      method: 'post',
      path: `${OFFERS}/:offerUuid/revoke`,
      document: buildOperation(schema, {
        type: 'mutation',
        name: 'RevokeCredentialOffer',
        route: `POST ${OFFERS}/:offerUuid/revoke`,
        fields: [{ field: 'revokeCredentialOffer', alias: 'result', selection: OFFER }],
      }),
      variables: (req) => ({ uuid: req.params.offerUuid }),
    },
  ];
}
