import { createHash, randomBytes, randomInt } from 'node:crypto';
import type { PublicContext, RequestContext } from '../context/request-context.js';
import { badgeSubjectOf } from '../badges/badge-records.js';
import { Certificate } from '../certificates/certificate.entity.js';
import { findOrFail } from '../db/lookup.js';
import { isUuid } from '../db/uuid.js';
import { conflict, invalid, notFound } from '../errors/domain-error.js';
import { OpenBadgeCredentialRecord } from '../badges/v3/open-badge-credential.entity.js';
import { CREDENTIAL_CONFIGURATIONS, PRE_AUTHORIZED_CODE_GRANT, WALLET_PATHS } from './issuer-metadata.js';
import { CredentialClaim, CredentialOffer } from './wallet.entities.js';

/** An offer made through the APIs lives this long unless asked otherwise; at most OFFER_MAX_TTL_SECONDS. */
export const OFFER_TTL_SECONDS = 900;
export const OFFER_MAX_TTL_SECONDS = 30 * 24 * 3600;
/** The offer an issuance e-mail carries lives this long (the student opens it when they can). */
export const EMAILED_OFFER_TTL_SECONDS = 14 * 24 * 3600;
/** Wrong PINs an offer takes before its code is spent. */
export const TX_CODE_MAX_FAILURES = 5;
const PIN_LENGTH = 6;

export const secretHash = (secret: string) => createHash('sha256').update(secret, 'utf8').digest('hex');
export const newSecret = () => randomBytes(32).toString('base64url');

export interface OfferOptions {
  /** Ask the wallet for a PIN (tx_code) that travels apart from the offer (the e-mail, the integrator's UI). */
  txCode?: boolean | null;
  expiresInSeconds?: number | null;
}

/** An offer as the APIs answer it; `txCode` and the links only when it is made (the code is kept hashed). */
export interface OfferView {
  uuid: string;
  certificateUuid: string;
  credentialOfferUri: string | null;
  offerUrl: string | null;
  txCode: string | null;
  txCodeRequired: boolean;
  expiresAt: Date;
  redeemedAt: Date | null;
  revokedAt: Date | null;
  claims: number;
  createdAt: Date;
}

export const offerUri = (publicBaseUrl: string, code: string) => `${publicBaseUrl}${WALLET_PATHS.offer.replace(':code', code)}`;
/** The deep link a wallet opens (OpenID4VCI 1.0 §4.1.3), by reference. */
export const offerDeepLink = (uri: string) => `openid-credential-offer://?credential_offer_uri=${encodeURIComponent(uri)}`;

function view(offer: CredentialOffer, claims: number, made?: { uri: string; txCode: string | null }): OfferView {
  return {
    uuid: offer.uuid,
    certificateUuid: offer.certificateUuid,
    credentialOfferUri: made?.uri ?? null,
    offerUrl: made ? offerDeepLink(made.uri) : null,
    txCode: made?.txCode ?? null,
    txCodeRequired: !!offer.txCodeHash,
    expiresAt: offer.expiresAt,
    redeemedAt: offer.redeemedAt ?? null,
    revokedAt: offer.revokedAt ?? null,
    claims,
    createdAt: offer.createdAt,
  };
}

/** Whether the certificate may go to a wallet now: issued, valid (public-standing.ts) and with its OB 3.0 credential. */
export async function offerable(ctx: PublicContext, certificateUuid: string): Promise<boolean> {
  const [subject, record] = await Promise.all([badgeSubjectOf(ctx, certificateUuid), ctx.em.count(OpenBadgeCredentialRecord, { certificateUuid })]);
  return subject.standing === 'valid' && record > 0;
}

/**
 * Makes an offer for an offerable certificate, in the caller's em (flushed by the caller or here):
 * a single-use pre-authorized code and, if asked, a PIN, both stored hashed.
 */
export function makeOffer(ctx: PublicContext, tenantUuid: string, certificateUuid: string, options: OfferOptions = {}) {
  const code = newSecret();
  const txCode = options.txCode ? String(randomInt(0, 10 ** PIN_LENGTH)).padStart(PIN_LENGTH, '0') : null;
  const ttl = options.expiresInSeconds ?? OFFER_TTL_SECONDS;
  const offer = ctx.em.create(CredentialOffer, {
    tenantUuid,
    certificateUuid,
    codeHash: secretHash(code),
    txCodeHash: txCode ? secretHash(txCode) : null,
    expiresAt: new Date(Date.now() + ttl * 1000),
  });
  const uri = offerUri(ctx.publicBaseUrl, code);
  return { offer, code, uri, txCode, view: () => view(offer, 0, { uri, txCode }) };
}

async function tenantOffer(ctx: RequestContext, uuid: string): Promise<CredentialOffer> {
  const offer = isUuid(uuid) ? await ctx.em.findOne(CredentialOffer, { uuid, tenantUuid: ctx.tenant.uuid }) : null;
  if (!offer) throw notFound('Credential offer');
  return offer;
}

const claimCount = (ctx: PublicContext, offerUuid: string) => ctx.em.count(CredentialClaim, { offerUuid });

/** Offers of the tenant's certificates to wallets (docs/wallets.md): made, listed, revoked. */
export const credentialOffers = {
  async create(ctx: RequestContext, certificateUuid: string, options: OfferOptions): Promise<OfferView> {
    const ttl = options.expiresInSeconds;
    if (ttl !== undefined && ttl !== null && (!Number.isInteger(ttl) || ttl < 60 || ttl > OFFER_MAX_TTL_SECONDS)) {
      throw invalid({ expiresInSeconds: [`The expires in seconds must be an integer between 60 and ${OFFER_MAX_TTL_SECONDS}.`] });
    }
    const certificate = await findOrFail(ctx.em, Certificate, certificateUuid, 'Certificate');
    if (!(await offerable(ctx, certificate.uuid))) {
      throw conflict('Only a valid issued certificate with an Open Badges 3.0 credential (badges enabled) can be offered to a wallet.');
    }
    const made = makeOffer(ctx, ctx.tenant.uuid, certificate.uuid, options);
    await ctx.em.flush();
    return made.view();
  },

  async list(ctx: RequestContext, certificateUuid: string): Promise<OfferView[]> {
    const certificate = await findOrFail(ctx.em, Certificate, certificateUuid, 'Certificate');
    const offers = await ctx.em.find(CredentialOffer, { certificateUuid: certificate.uuid, tenantUuid: ctx.tenant.uuid }, { orderBy: { createdAt: 'desc' } });
    const claims = await ctx.em.find(CredentialClaim, { offerUuid: { $in: offers.map((offer) => offer.uuid) } }, { fields: ['offerUuid'] });
    const counts = new Map<string, number>();
    for (const claim of claims) counts.set(claim.offerUuid, (counts.get(claim.offerUuid) ?? 0) + 1);
    return offers.map((offer) => view(offer, counts.get(offer.uuid) ?? 0));
  },

  /** Revoked at once: its code no longer redeems, its access tokens no longer receive credentials. */
  async revoke(ctx: RequestContext, uuid: string): Promise<OfferView> {
    const offer = await tenantOffer(ctx, uuid);
    offer.revokedAt ??= new Date();
    await ctx.em.flush();
    return view(offer, await claimCount(ctx, offer.uuid));
  },
};

/**
 * The deep link of a live offer of `certificateUuid` whose code is `code`, else null: the verification
 * page shows it to whoever followed the e-mail's link (which carries the code), never to the bare public URL.
 */
export async function liveOfferUrl(ctx: PublicContext, code: string, certificateUuid: string): Promise<string | null> {
  return (await offerDocument(ctx, code, certificateUuid)) ? offerDeepLink(offerUri(ctx.publicBaseUrl, code)) : null;
}

/** The Credential Offer (OpenID4VCI 1.0 §4.1.1) a live code names, for its credential_offer_uri; null otherwise. */
export async function offerDocument(ctx: PublicContext, code: string, certificateUuid?: string) {
  const offer = code.length <= 64 ? await ctx.em.findOne(CredentialOffer, { codeHash: secretHash(code) }) : null;
  if (!offer || offer.revokedAt || offer.redeemedAt || offer.expiresAt <= new Date()) return null;
  if (certificateUuid !== undefined && offer.certificateUuid !== certificateUuid) return null;
  return {
    credential_issuer: ctx.publicBaseUrl,
    credential_configuration_ids: Object.keys(CREDENTIAL_CONFIGURATIONS),
    grants: {
      [PRE_AUTHORIZED_CODE_GRANT]: {
        'pre-authorized_code': code,
        ...(offer.txCodeHash
          ? { tx_code: { input_mode: 'numeric', length: PIN_LENGTH, description: 'The PIN in the e-mail that brought you the credential.' } }
          : {}),
      },
    },
  };
}
