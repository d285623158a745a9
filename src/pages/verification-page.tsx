import type { CredentialDetails } from '../verification/credential-details.js';
import type { VerificationFacts } from '../verification/verification-facts.js';
import { CARD_HEIGHT, CARD_WIDTH } from './credential-card.js';
import { Layout, renderDocument } from './layout.js';
import { formatDate, formatDateTime } from './locale.js';
import { messagesFor } from './messages.js';
import { FactRow, STATE_TONE, StatusBadge, UploadForm, type PageContext } from './parts.js';
import { QrCode } from './qr-svg.js';
import { cardUrl, embedSnippet, NETWORK_NAMES, shareRedirectUrl } from './share-links.js';

/** The page's facts plus what other features add: the baked Open Badge, the credential's details, this service's own address of the page. */
export interface VerificationPageData extends VerificationFacts {
  badgeDownloadUrl?: string | null;
  details?: CredentialDetails;
  /** This service's /verify/{uuid}: where share clicks, the card and oEmbed live. */
  pageUrl: string;
  /** The transcript as a CLR 2.0 credential (with badges). */
  clrUrl?: string | null;
  /** The recipient's OpenID4VCI offer (deep link), when the e-mail's link carried its live code (docs/wallets.md). */
  walletOfferUrl?: string | null;
}

/** Only a valid certificate is offered for sharing and download; a revoked or expired one says what it is and nothing more. */
const offersActions = (data: VerificationFacts) => data.state === 'valid';

function Downloads({ data, context }: { data: VerificationPageData; context: PageContext }) {
  const m = messagesFor(context.locale).verification;
  const credential = data.details?.credential;
  if (!offersActions(data) || (data.documents.length === 0 && !data.badgeDownloadUrl && !credential)) return null;
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
        {credential && (
          <>
            <li>
              <a href={credential.jsonUrl} type="application/ld+json">
                {m.ob3Json}
              </a>
            </li>
            <li>
              <a href={credential.imageUrl}>{m.ob3Image}</a>
            </li>
          </>
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
  const { locale } = context;
  const m = messagesFor(locale).verification;
  if (!offersActions(data)) {
    return (
      <section aria-labelledby="share-heading">
        <h2 id="share-heading">{m.share}</h2>
        <p class="hint">{m.notShared}</p>
      </section>
    );
  }
  return (
    <section aria-labelledby="share-heading">
      <h2 id="share-heading">{m.share}</h2>
      <div class="share">
        <figure class="qr">
          <QrCode url={data.verificationUrl} label={m.qrLabel(data.verificationUrl)} />
          <figcaption>{m.qrCaption}</figcaption>
        </figure>
        <div>
          <p class="linkedin">
            <a class="button" href={shareRedirectUrl(data.pageUrl, 'linkedin-profile', locale)} rel="noopener noreferrer nofollow" target="_blank">
              {m.addToLinkedIn}
            </a>
          </p>
          <ul class="plain networks">
            {(Object.keys(NETWORK_NAMES) as (keyof typeof NETWORK_NAMES)[]).map((network) => (
              <li>
                <a href={shareRedirectUrl(data.pageUrl, network, locale)} rel="noopener noreferrer nofollow" target="_blank">
                  {m.shareOn(NETWORK_NAMES[network])}
                </a>
              </li>
            ))}
            <li>
              <a href={shareRedirectUrl(data.pageUrl, 'email', locale)} rel="nofollow">
                {m.shareByEmail}
              </a>
            </li>
          </ul>
        </div>
      </div>
      <p class="copy">
        <label for="page-link">{m.copyLink}</label>
        <input id="page-link" type="url" readOnly value={data.verificationUrl} />
      </p>
      <p class="copy">
        <label for="embed-code">{m.embed}</label>
        <textarea id="embed-code" readOnly rows={3} aria-describedby="embed-hint">
          {embedSnippet(data, data.pageUrl, locale)}
        </textarea>
        <span class="hint" id="embed-hint">
          {m.embedHint}
        </span>
      </p>
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

/** The certificate's header, status and facts; shared with the PDF check result. A certificate no longer valid says so first. */
export function CertificateSummary({ data, context, imageUrl }: { data: VerificationFacts; context: PageContext; imageUrl?: string | null }) {
  const { locale } = context;
  const messages = messagesFor(locale);
  const m = messages.verification;
  const state = messages.state[data.state];
  const day = (date: Date | null) => (date ? formatDate(date, locale) : null);
  const status = (
    <div class={`state tone-${STATE_TONE[data.state]}`} role="status">
      <StatusBadge tone={STATE_TONE[data.state]}>{state.label}</StatusBadge>
      <p>{state.text}</p>
    </div>
  );
  const expiry = data.expiresAt ? null : data.state === 'valid' ? m.doesNotExpire : null;
  return (
    <>
      {data.state !== 'valid' && status}
      <header class={imageUrl ? 'with-image' : undefined}>
        {imageUrl && <img class="credential-image" src={imageUrl} alt={m.logoAlt(data.institutionName)} width={96} height={96} />}
        <div>
          <p class="issuer">{data.institutionName}</p>
          <h1>{data.courseName}</h1>
          <p class="lede">
            {m.awardedTo} <strong>{data.recipientName}</strong>
          </p>
        </div>
      </header>
      {data.state === 'valid' && status}
      <dl>
        <FactRow label={m.recipient} value={data.recipientName} />
        <FactRow label={m.course} value={data.courseName} />
        <FactRow label={m.issuedBy} value={data.institutionName} />
        <FactRow label={m.issuedOn} value={day(data.issuedAt)} />
        <FactRow label={data.state === 'expired' ? m.expiredOn : m.validUntil} value={day(data.expiresAt)} />
        <FactRow label={m.expiry} value={expiry} />
        <FactRow label={m.revokedOn} value={day(data.revokedAt)} />
        <FactRow label={m.reason} value={data.revocationReason} />
        <FactRow label={m.certificateId} value={data.uuid} />
        <AnchorRow data={data} context={context} />
      </dl>
    </>
  );
}

/** The course: its description, its modules with hours and credits, and the grade where the institution publishes grades. */
function About({ details, context }: { details: CredentialDetails | undefined; context: PageContext }) {
  const m = messagesFor(context.locale).verification;
  if (!details || (!details.courseDescription && details.modules.length === 0 && !details.grade)) return null;
  return (
    <section aria-labelledby="about-heading">
      <h2 id="about-heading">{m.about}</h2>
      {details.courseDescription && <p class="description">{details.courseDescription}</p>}
      {details.grade && (
        <dl class="flush">
          <FactRow label={m.finalGrade} value={details.grade} />
        </dl>
      )}
      {details.modules.length > 0 && (
        <>
          <h3 class="subheading">{m.modules}</h3>
          <ul class="modules">
            {details.modules.map((module) => (
              <li>
                <span>{module.code ? `${module.code} · ${module.name}` : module.name}</span>
                <span class="meta">
                  {[module.workload ? m.hours(module.workload) : null, module.credits ? m.credits(module.credits) : null].filter(Boolean).join(' · ')}
                </span>
              </li>
            ))}
          </ul>
        </>
      )}
    </section>
  );
}

/** What anyone can check without asking the institution: the PDF signatures, the issuer key, the status list, the anchor. */
function HowVerified({ data, context }: { data: VerificationPageData; context: PageContext }) {
  const m = messagesFor(context.locale).verification;
  const credential = data.details?.credential;
  const anchor = data.anchor && data.anchor !== 'pending' ? data.anchor : null;
  return (
    <section aria-labelledby="how-heading">
      <h2 id="how-heading">{m.howVerified}</h2>
      <p>{m.howVerifiedIntro}</p>
      <ul class="checks">
        <li>{m.signatureCheck(data.institutionName)}</li>
        {credential && (
          <li>
            <strong>{m.issuerKey}.</strong> {m.issuerKeyText}{' '}
            <a class="url" href={credential.issuerKeyUrl}>
              {credential.verificationMethod ?? credential.issuerKeyUrl}
            </a>
          </li>
        )}
        {credential?.statusListUrl && (
          <li>
            <strong>{m.statusList}.</strong> {m.statusListText}{' '}
            <a class="url" href={credential.statusListUrl}>
              {credential.statusListUrl}
            </a>
          </li>
        )}
        {anchor && (
          <li>
            {/* The transaction's link is in the facts above; one link of that name a page. */}
            <strong>{m.anchor}.</strong> {m.anchoredOn(anchor.network, anchor.blockNumber, formatDateTime(anchor.anchoredAt, context.locale))}
          </li>
        )}
      </ul>
    </section>
  );
}

/** GET /verify/{uuid}: status first when not valid, the credential, downloads and sharing (valid only), how it was verified, the PDF check form. */
export function renderVerificationPage(data: VerificationPageData, context: PageContext): string {
  const { locale } = context;
  const m = messagesFor(locale).verification;
  const title = m.title(data.courseName, data.recipientName);
  const meta = {
    title,
    description: m.description(data.recipientName, data.courseName, data.institutionName),
    canonical: data.verificationUrl,
    noindex: true,
    image: { url: cardUrl(data.pageUrl, locale), width: CARD_WIDTH, height: CARD_HEIGHT, alt: m.cardAlt(data.courseName, data.recipientName) },
    oembed: { url: `${new URL(data.pageUrl).origin}/oembed?${new URLSearchParams({ url: data.pageUrl, format: 'json' })}`, title },
  };
  return renderDocument(
    <Layout locale={locale} meta={meta}>
      <CertificateSummary data={data} context={context} imageUrl={data.details?.imageUrl} />
      <About details={data.details} context={context} />
      <Downloads data={data} context={context} />
      <Share data={data} context={context} />
      <HowVerified data={data} context={context} />
      <UploadForm context={context} />
    </Layout>,
  );
}
