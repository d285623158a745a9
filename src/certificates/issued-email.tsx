import { render } from 'preact-render-to-string';
import type { Messages } from '../i18n/messages.js';
import type { WalletOffer } from '../wallets/emailed-offer.js';

/** The HTML part of the issued-certificate e-mail; preact escapes every name and the link. */
export function issuedEmailHtml({
  m,
  name,
  institutionName,
  courseName,
  url,
  certificateUuid,
  badgeUrl,
  walletOffer = null,
}: Record<'name' | 'institutionName' | 'courseName' | 'url' | 'certificateUuid', string> & {
  m: Messages['email'];
  badgeUrl: string | null;
  walletOffer?: WalletOffer | null;
}) {
  return render(
    <>
      <p>{m.greeting(name)}</p>
      <p>{m.issued(institutionName, courseName)}</p>
      <p>
        <a href={url}>{m.viewLink}</a> — {m.viewLinkAfter}
      </p>
      {badgeUrl && (
        <p>
          <a href={badgeUrl}>{m.badgeLink}</a> — {m.badgeLinkAfter}
        </p>
      )}
      {walletOffer && (
        <p>
          {m.walletScan} <a href={walletOffer.offerUrl}>{m.walletLink}</a>. {m.walletUntil(walletOffer.expiresAt.toISOString().slice(0, 10))}
          <br />
          <img src={walletOffer.qrDataUrl} width={200} height={200} alt={m.walletQrAlt} />
        </p>
      )}
      {walletOffer?.txCode && <p>{m.walletPin(walletOffer.txCode)}</p>}
      <p style={{ color: '#666' }}>
        {m.certificateId}: {certificateUuid}
      </p>
    </>,
  );
}
