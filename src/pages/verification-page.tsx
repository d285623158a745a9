import type { VerificationFacts } from '../verification/verification-facts.js';
import { Layout, renderDocument } from './layout.js';
import { linkedInAddToProfileUrl } from './linkedin.js';
import { formatDate, formatDateTime } from './locale.js';
import { messagesFor } from './messages.js';
import { FactRow, STATE_TONE, StatusBadge, UploadForm, type PageContext } from './parts.js';
import { QrCode } from './qr-svg.js';

/** The page's facts plus what other features add: the baked Open Badge when the institution has badges. */
export interface VerificationPageData extends VerificationFacts {
  badgeDownloadUrl?: string | null;
  /** The transcript as a CLR 2.0 credential (with badges). */
  clrUrl?: string | null;
  /** The recipient's OpenID4VCI offer (deep link), when the e-mail's link carried its live code (docs/wallets.md). */
  walletOfferUrl?: string | null;
}

function Downloads({ data, context }: { data: VerificationPageData; context: PageContext }) {
  const m = messagesFor(context.locale).verification;
  if (data.documents.length === 0 && !data.badgeDownloadUrl) return null;
  return (
    <section aria-labelledby="downloads-heading">
      <h2 id="downloads-heading">{m.documents}</h2>
      <ul class="plain downloads">
        {data.documents.map((doc) => (
          <li>
            <a href={doc.url} download={doc.name}>
              {doc.type === 'certificate' ? m.signedCertificate : m.signedTranscript}
            </a>
          </li>
        ))}
        {data.badgeDownloadUrl && (
          <li>
            <a href={data.badgeDownloadUrl}>{m.badge}</a>
          </li>
        )}
        {data.clrUrl && (
          <li>
            <a href={data.clrUrl}>{m.clr}</a>
          </li>
        )}
      </ul>
      {data.walletOfferUrl && (
        <p class="wallet-offer">
          <a href={data.walletOfferUrl}>{m.walletOffer}</a>
          <QrCode url={data.walletOfferUrl} label={m.walletOffer} />
        </p>
      )}
    </section>
  );
}

function Share({ data, context }: { data: VerificationPageData; context: PageContext }) {
  const m = messagesFor(context.locale).verification;
  return (
    <section aria-labelledby="share-heading">
      <h2 id="share-heading">{m.share}</h2>
      <div class="share">
        <figure class="qr">
          <QrCode url={data.verificationUrl} label={m.qrLabel(data.verificationUrl)} />
          <figcaption>{m.qrCaption}</figcaption>
        </figure>
        <div>
          {data.state === 'valid' && (
            <p class="linkedin">
              <a class="button" href={linkedInAddToProfileUrl(data)} rel="noopener noreferrer" target="_blank">
                {m.addToLinkedIn}
              </a>
            </p>
          )}
          <p>
            {m.thisPage}:{' '}
            <a class="url" href={data.verificationUrl}>
              {data.verificationUrl}
            </a>
          </p>
        </div>
      </div>
    </section>
  );
}

/** Where the certificate is anchored (with the transaction's link), or that it waits for its batch; nothing with anchoring off. */
function AnchorRow({ data, context }: { data: VerificationFacts; context: PageContext }) {
  const m = messagesFor(context.locale).verification;
  const { anchor } = data;
  if (!anchor) return null;
  return (
    <div class="row">
      <dt>{m.anchor}</dt>
      <dd>
        {anchor === 'pending' ? (
          m.anchorPending
        ) : (
          <>
            {m.anchoredOn(anchor.network, anchor.blockNumber, formatDateTime(anchor.anchoredAt, context.locale))}
            {' · '}
            {anchor.txUrl ? (
              <a href={anchor.txUrl} rel="noopener noreferrer">
                {m.anchorTransaction}
              </a>
            ) : (
              <code class="url">{anchor.txHash}</code>
            )}
          </>
        )}
      </dd>
    </div>
  );
}

/** The certificate's header, status and facts; shared with the PDF check result. */
export function CertificateSummary({ data, context }: { data: VerificationFacts; context: PageContext }) {
  const { locale } = context;
  const messages = messagesFor(locale);
  const m = messages.verification;
  const state = messages.state[data.state];
  const day = (date: Date | null) => (date ? formatDate(date, locale) : null);
  return (
    <>
      <header>
        <p class="issuer">{data.institutionName}</p>
        <h1>{data.courseName}</h1>
        <p class="lede">
          {m.awardedTo} <strong>{data.recipientName}</strong>
        </p>
      </header>
      <div class={`state tone-${STATE_TONE[data.state]}`} role="status">
        <StatusBadge tone={STATE_TONE[data.state]}>{state.label}</StatusBadge>
        <p>{state.text}</p>
      </div>
      <dl>
        <FactRow label={m.recipient} value={data.recipientName} />
        <FactRow label={m.course} value={data.courseName} />
        <FactRow label={m.issuedBy} value={data.institutionName} />
        <FactRow label={m.issuedOn} value={day(data.issuedAt)} />
        <FactRow label={data.state === 'expired' ? m.expiredOn : m.validUntil} value={day(data.expiresAt)} />
        <FactRow label={m.revokedOn} value={day(data.revokedAt)} />
        <FactRow label={m.reason} value={data.revocationReason} />
        <FactRow label={m.certificateId} value={data.uuid} />
        <AnchorRow data={data} context={context} />
      </dl>
    </>
  );
}

/** GET /verify/{uuid}: status, facts, downloads, sharing (LinkedIn, QR) and the PDF check form. */
export function renderVerificationPage(data: VerificationPageData, context: PageContext): string {
  const m = messagesFor(context.locale).verification;
  const meta = {
    title: m.title(data.courseName, data.recipientName),
    description: m.description(data.recipientName, data.courseName, data.institutionName),
    canonical: data.verificationUrl,
    noindex: true,
  };
  return renderDocument(
    <Layout locale={context.locale} meta={meta}>
      <CertificateSummary data={data} context={context} />
      <Downloads data={data} context={context} />
      <Share data={data} context={context} />
      <UploadForm context={context} />
    </Layout>,
  );
}
