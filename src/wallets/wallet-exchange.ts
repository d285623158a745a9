import { randomUUID } from 'node:crypto';
import type { PublicContext } from '../context/request-context.js';
import { clrCredentials, institutionSigner } from '../badges/clr/clr.service.js';
import { boundTo } from '../badges/clr/clr-credential.js';
import { hostedRecord } from '../badges/v3/credential.service.js';
import { countWalletClaim } from '../engagement/engagement-recorder.js';
import { withProofList } from '../badges/v3/open-badge-credential.js';
import { offerable, secretHash, newSecret, TX_CODE_MAX_FAILURES } from './credential-offers.js';
import { verifyProofJwt } from './holder-proof.js';
import { CREDENTIAL_CONFIGURATIONS, type CredentialConfigurationId, isConfigurationId, PRE_AUTHORIZED_CODE_GRANT } from './issuer-metadata.js';
import { WalletError } from './wallet-errors.js';
import { CredentialClaim } from './wallet.entities.js';
import {
  consumeNonce,
  countWrongTxCode,
  insertAccessToken,
  insertNonce,
  offerByCode,
  offerOfAccessToken,
  type OfferRow,
  redeemOffer,
} from './wallet.repository.js';

/** A wallet's access token lives this long: enough to ask for both credentials of an offer. */
export const WALLET_TOKEN_TTL_SECONDS = 300;
export const NONCE_TTL_SECONDS = 300;

type Body = Record<string, unknown>;

const grantError = (description: string) => new WalletError('invalid_grant', description);

/** Why a code did not redeem, for its error (the wrong PIN counted towards the limit). */
async function refusal(ctx: PublicContext, offer: OfferRow | undefined, txCode: string | null): Promise<WalletError> {
  if (!offer) return grantError('The pre-authorized code is unknown.');
  if (offer.revoked) return grantError('The credential offer was revoked.');
  if (offer.redeemed) return grantError('The pre-authorized code was already used.');
  if (offer.expired) return grantError('The credential offer expired.');
  if (offer.tx_code_failures >= TX_CODE_MAX_FAILURES) return grantError('Too many wrong PINs: the credential offer is spent.');
  // Only a PIN can be wrong now (a concurrent redemption reads as used above, or here without a PIN).
  if (!offer.tx_code_hash) return grantError('The pre-authorized code was already used.');
  if (txCode !== null) {
    await countWrongTxCode(ctx.em, offer.uuid);
  }
  return grantError('The PIN (tx_code) is wrong.');
}

/**
 * The wallet side of OpenID4VCI 1.0 (pre-authorized code flow): code → access token, nonces, and
 * proofs of possession → the certificate's credentials bound to the holder's DID, signed like the
 * public ones and on the same status list entry. Errors are WalletErrors (OAuth form).
 */
export const walletExchange = {
  /** Token endpoint (§6): the pre-authorized code (and PIN) for a short-lived access token. */
  async token(ctx: PublicContext, body: Body) {
    if (body.grant_type !== PRE_AUTHORIZED_CODE_GRANT) {
      throw new WalletError(
        body.grant_type ? 'unsupported_grant_type' : 'invalid_request',
        `grant_type must be ${PRE_AUTHORIZED_CODE_GRANT}; service clients use /api/v1/oauth/token.`,
      );
    }
    const code = body['pre-authorized_code'];
    if (typeof code !== 'string' || !code || code.length > 64) throw new WalletError('invalid_request', 'pre-authorized_code is required.');
    const txCode = typeof body.tx_code === 'string' ? body.tx_code : null;
    const codeHash = secretHash(code);
    const offer = await offerByCode(ctx.em, codeHash);
    if (offer?.tx_code_hash && txCode === null) throw new WalletError('invalid_request', 'This offer asks for a PIN: send it as tx_code.');
    const redeemed = await redeemOffer(ctx.em, codeHash, txCode === null ? '' : secretHash(txCode));
    if (!redeemed) throw await refusal(ctx, offer, txCode);
    if (!(await offerable(ctx, redeemed.certificate_uuid))) throw grantError('The certificate is no longer valid.');
    const accessToken = newSecret();
    await insertAccessToken(ctx.em, secretHash(accessToken), redeemed.uuid, new Date(Date.now() + WALLET_TOKEN_TTL_SECONDS * 1000));
    return { access_token: accessToken, token_type: 'Bearer', expires_in: WALLET_TOKEN_TTL_SECONDS };
  },

  /** Nonce endpoint (§7): a fresh single-use c_nonce. */
  async nonce(ctx: PublicContext) {
    const nonce = newSecret();
    await insertNonce(ctx.em, secretHash(nonce), new Date(Date.now() + NONCE_TTL_SECONDS * 1000));
    return { c_nonce: nonce };
  },

  /** Credential endpoint (§8): one credential of the offer, bound to the DID whose key signed the proof. */
  async credential(ctx: PublicContext, authorization: string | undefined, body: Body) {
    const offer = await tokenOffer(ctx, authorization);
    const configurationId = requestedConfiguration(body);
    const { holder, nonce } = await verifyProofJwt(proofJwt(body), ctx.publicBaseUrl);
    if (!nonce) throw new WalletError('invalid_nonce', 'The proof carries no c_nonce; get one from the nonce endpoint.');
    const used = await consumeNonce(ctx.em, secretHash(nonce));
    if (!used) throw new WalletError('invalid_nonce', 'The c_nonce is unknown, expired or already used; get a fresh one from the nonce endpoint.');
    if (!(await offerable(ctx, offer.certificateUuid))) throw new WalletError('invalid_token', 'The certificate is no longer valid.');
    const credential = await holderCredential(ctx, offer.certificateUuid, CREDENTIAL_CONFIGURATIONS[configurationId].kind, holder);
    await ctx.em.transactional(async (em) => {
      em.create(CredentialClaim, { offerUuid: offer.uuid, certificateUuid: offer.certificateUuid, tenantUuid: offer.tenantUuid, configurationId, holder });
      await em.flush();
      await countWalletClaim(em, offer.certificateUuid);
    });
    return { credentials: [{ credential }] };
  },
};

async function tokenOffer(ctx: PublicContext, authorization: string | undefined) {
  const token = /^Bearer ([A-Za-z0-9_-]{1,64})$/.exec(authorization ?? '')?.[1];
  if (!token) throw new WalletError('invalid_token', 'A Bearer access token from the token endpoint is required.');
  const row = await offerOfAccessToken(ctx.em, secretHash(token));
  if (!row) throw new WalletError('invalid_token', 'The access token is unknown, expired, or its offer was revoked.');
  return { uuid: row.uuid, certificateUuid: row.certificate_uuid, tenantUuid: row.tenant_uuid };
}

/** The configuration asked for: OpenID4VCI 1.0's `credential_configuration_id` (or `credential_identifier`, the same ids here). */
function requestedConfiguration(body: Body): CredentialConfigurationId {
  const id = body.credential_configuration_id ?? body.credential_identifier;
  if (id === undefined) throw new WalletError('invalid_credential_request', 'credential_configuration_id is required.');
  if (!isConfigurationId(id)) throw new WalletError('unknown_credential_configuration', `Offered: ${Object.keys(CREDENTIAL_CONFIGURATIONS).join(', ')}.`);
  return id;
}

/** The JWT proof: 1.0's `proofs: {jwt: [one]}`, or the single `proof: {proof_type: "jwt", jwt}` of the drafts. */
function proofJwt(body: Body): unknown {
  const proofs = body.proofs as { jwt?: unknown } | undefined;
  if (proofs && typeof proofs === 'object') {
    if (!Array.isArray(proofs.jwt) || proofs.jwt.length !== 1) throw new WalletError('invalid_proof', 'Send exactly one JWT proof (proofs.jwt).');
    return proofs.jwt[0];
  }
  const proof = body.proof as { proof_type?: unknown; jwt?: unknown } | undefined;
  if (!proof || proof.proof_type !== 'jwt') throw new WalletError('invalid_proof', 'A JWT proof of possession (proofs.jwt) is required.');
  return proof.jwt;
}

/** The certificate's OB 3.0 or CLR 2.0 credential with the holder as its subject, signed now by the institution's active key. */
async function holderCredential(ctx: PublicContext, certificateUuid: string, kind: 'openBadge' | 'clr', holder: string) {
  const hosted = await hostedRecord(ctx, certificateUuid);
  if (!hosted || hosted === 'withdrawn') throw new WalletError('invalid_token', 'The certificate is no longer published.');
  const published = kind === 'openBadge' ? withProofList(hosted.record.document) : await clrCredentials.hostedCredential(ctx, certificateUuid);
  if (!published || published === 'withdrawn') throw new WalletError('invalid_token', 'The certificate is no longer published.');
  const sign = await institutionSigner(ctx, hosted.institution);
  return sign(boundTo(published, holder, `urn:uuid:${randomUUID()}`));
}
