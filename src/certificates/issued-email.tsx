import { render } from 'preact-render-to-string';
import type { WalletOffer } from '../wallets/emailed-offer.js';

/** The HTML part of the issued-certificate e-mail; preact escapes every name and the link. */
export function issuedEmailHtml({
  name,
  institutionName,
  courseName,
  url,
  certificateUuid,
  badgeUrl,
  walletOffer = null,
}: Record<'name' | 'institutionName' | 'courseName' | 'url' | 'certificateUuid', string> & { badgeUrl: string | null; walletOffer?: WalletOffer | null }) {
  return render(
    <>
      <p>Dear {name},</p>
      <p>
        {institutionName} has issued your certificate for <strong>{courseName}</strong>.
      </p>
      <p>
        <a href={url}>View and verify your certificate</a> — the page also has the signed PDF and your transcript.
      </p>
      {badgeUrl && (
        <p>
          <a href={badgeUrl}>Download your Open Badge</a> — an image with the credential baked in, for badge backpacks and profiles.
        </p>
      )}
      {walletOffer && (
        <p>
          Add your credentials (Open Badge and transcript) to a digital wallet: scan this code with the wallet app, or{' '}
          <a href={walletOffer.offerUrl}>open the offer on this device</a>. It works once, until {walletOffer.expiresAt.toISOString().slice(0, 10)}.
          <br />
          <img src={walletOffer.qrDataUrl} width={200} height={200} alt="QR code of the wallet offer" />
        </p>
      )}
      <p style={{ color: '#666' }}>Certificate ID: {certificateUuid}</p>
    </>,
  );
}
