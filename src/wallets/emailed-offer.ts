import type { RequestContext } from '../context/request-context.js';
import { qrPngDataUrl } from '../documents/qr-code.js';
import { EMAILED_OFFER_TTL_SECONDS, makeOffer } from './credential-offers.js';

/** What the issuance e-mail shows of the student's wallet offer. */
export interface WalletOffer {
  offerUrl: string;
  /** The verification page with the offer's code: it shows the offer too (docs/wallets.md). */
  pageUrl: string;
  qrDataUrl: string;
  expiresAt: Date;
  /** The PIN the wallet asks for, when the institution requires one (`is_wallet_pin_required`); the e-mail prints it apart from the offer. */
  txCode: string | null;
}

/**
 * The offer the issuance e-mail carries, made in the issuance transaction (one insert with its flush):
 * valid EMAILED_OFFER_TTL_SECONDS, single use, as a deep link and its QR code (PNG), with a PIN if asked.
 */
export async function emailedOffer(tx: RequestContext, certificateUuid: string, verificationUrl: string, withPin: boolean): Promise<WalletOffer> {
  const made = makeOffer(tx, tx.tenant.uuid, certificateUuid, { expiresInSeconds: EMAILED_OFFER_TTL_SECONDS, txCode: withPin });
  const offerUrl = made.view().offerUrl!;
  const pageUrl = `${verificationUrl}?offer=${made.code}`;
  return {
    offerUrl,
    pageUrl,
    qrDataUrl: qrPngDataUrl(offerUrl, 200, 2),
    expiresAt: made.offer.expiresAt,
    txCode: made.txCode,
  };
}
