import { CLR_CREDENTIAL_CONTEXT, OPEN_BADGE_CREDENTIAL_CONTEXT } from '../badges/v3/document-loader.js';

/** Where the OpenID4VCI endpoints live under PUBLIC_BASE_URL (the Credential Issuer Identifier). */
export const WALLET_PATHS = {
  issuerMetadata: '/.well-known/openid-credential-issuer',
  authorizationServerMetadata: '/.well-known/oauth-authorization-server',
  offer: '/oid4vci/offers/:code',
  token: '/oid4vci/token',
  nonce: '/oid4vci/nonce',
  credential: '/oid4vci/credential',
};

export const PRE_AUTHORIZED_CODE_GRANT = 'urn:ietf:params:oauth:grant-type:pre-authorized_code';

/** The credentials a wallet may receive, by configuration id; each is the certificate's credential bound to the holder. */
export const CREDENTIAL_CONFIGURATIONS = {
  OpenBadgeCredential_ldp_vc: {
    kind: 'openBadge',
    context: OPEN_BADGE_CREDENTIAL_CONTEXT,
    type: ['VerifiableCredential', 'OpenBadgeCredential'],
    name: 'Open Badge',
  },
  ClrCredential_ldp_vc: { kind: 'clr', context: CLR_CREDENTIAL_CONTEXT, type: ['VerifiableCredential', 'ClrCredential'], name: 'Academic transcript (CLR)' },
} as const;

export type CredentialConfigurationId = keyof typeof CREDENTIAL_CONFIGURATIONS;

export const isConfigurationId = (value: unknown): value is CredentialConfigurationId =>
  typeof value === 'string' && Object.hasOwn(CREDENTIAL_CONFIGURATIONS, value);

/** Credential Issuer Metadata (OpenID4VCI 1.0 §12.2): this service is its own authorization server. */
export function issuerMetadata(publicBaseUrl: string) {
  return {
    credential_issuer: publicBaseUrl,
    authorization_servers: [publicBaseUrl],
    credential_endpoint: `${publicBaseUrl}${WALLET_PATHS.credential}`,
    nonce_endpoint: `${publicBaseUrl}${WALLET_PATHS.nonce}`,
    display: [{ name: 'Certificates', locale: 'en' }],
    credential_configurations_supported: Object.fromEntries(
      Object.entries(CREDENTIAL_CONFIGURATIONS).map(([id, configuration]) => [
        id,
        {
          format: 'ldp_vc',
          cryptographic_binding_methods_supported: ['did:key', 'did:jwk'],
          credential_signing_alg_values_supported: ['eddsa-rdfc-2022'],
          proof_types_supported: { jwt: { proof_signing_alg_values_supported: ['EdDSA', 'ES256'] } },
          credential_definition: { '@context': configuration.context, type: configuration.type },
          display: [{ name: configuration.name, locale: 'en' }],
        },
      ]),
    ),
  };
}

/** OAuth 2.0 Authorization Server Metadata (RFC 8414) for the pre-authorized code grant only. */
export function authorizationServerMetadata(publicBaseUrl: string) {
  return {
    issuer: publicBaseUrl,
    token_endpoint: `${publicBaseUrl}${WALLET_PATHS.token}`,
    grant_types_supported: [PRE_AUTHORIZED_CODE_GRANT],
    response_types_supported: [],
    token_endpoint_auth_methods_supported: ['none'],
    'pre-authorized_grant_anonymous_access_supported': true,
  };
}
