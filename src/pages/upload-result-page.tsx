import type { Verdict } from '../verification/document-verdict.js';
import type { DocumentVerdict } from '../verification/verification.service.js';
import { Layout, renderDocument } from './layout.js';
import { formatDate } from './locale.js';
import { messagesFor } from './messages.js';
import { FactRow, STATE_TONE, StatusBadge, UploadForm, type PageContext, type Tone } from './parts.js';

const VERDICT_TONE: Record<Verdict, Tone> = {
  authentic: 'good',
  modified_after_signing: 'bad',
  invalid: 'bad',
  not_issued_here: 'warn',
  unsigned: 'warn',
};

/** The certificate an authentic PDF belongs to, as it stands today (it may have been revoked since). */
function IssuedDocument({ verdict, context }: { verdict: DocumentVerdict; context: PageContext }) {
  const facts = verdict.certificate;
  if (!facts) return null;
  const messages = messagesFor(context.locale);
  const m = messages.verification;
  const type = verdict.documentType === 'transcript' ? messages.result.transcriptDocument : messages.result.certificateDocument;
  return (
    <section aria-labelledby="document-heading">
      <h2 id="document-heading">{messages.result.documentIs}</h2>
      <dl class="flush">
        <FactRow label={messages.result.kind} value={type} />
        <FactRow label={m.recipient} value={facts.recipientName} />
        <FactRow label={m.course} value={facts.courseName} />
        <FactRow label={m.issuedBy} value={facts.institutionName} />
        <FactRow label={m.issuedOn} value={formatDate(facts.issuedAt, context.locale)} />
        <div class="row">
          <dt>{messages.result.certificateStatus}</dt>
          <dd>
            <StatusBadge tone={STATE_TONE[facts.state]}>{messages.state[facts.state].label}</StatusBadge>
          </dd>
        </div>
      </dl>
      <p>
        <a href={facts.verificationUrl}>{messages.result.openVerification}</a>
      </p>
    </section>
  );
}

/** POST /verify: the verdict of the verification service on an uploaded PDF, and the form again. */
export function renderUploadResultPage(verdict: DocumentVerdict, context: PageContext): string {
  const m = messagesFor(context.locale).result;
  const outcome = m.verdict[verdict.verdict];
  return renderDocument(
    <Layout locale={context.locale} meta={{ title: `${outcome.label} · ${m.title}`, noindex: true }}>
      <header>
        <h1>{m.heading}</h1>
      </header>
      <div class={`state tone-${VERDICT_TONE[verdict.verdict]}`} role="status">
        <StatusBadge tone={VERDICT_TONE[verdict.verdict]}>{outcome.label}</StatusBadge>
        <p>{outcome.text}</p>
        <p>{m.signatures(verdict.signatures.length)}</p>
      </div>
      <IssuedDocument verdict={verdict} context={context} />
      <UploadForm context={context} />
    </Layout>,
  );
}

/** An upload the check could not take (too large, no file, too many, busy): what to do, and the form. */
export function renderUploadProblemPage(problem: string, context: PageContext): string {
  const m = messagesFor(context.locale).problem;
  return renderDocument(
    <Layout locale={context.locale} meta={{ title: m.title, noindex: true }}>
      <header>
        <h1>{m.title}</h1>
      </header>
      <div class="state tone-bad" role="alert">
        <p>{problem}</p>
      </div>
      <UploadForm context={context} />
    </Layout>,
  );
}

/** GET /verify: the PDF check on its own, for someone who has a PDF but no link. */
export function renderUploadFormPage(context: PageContext): string {
  const m = messagesFor(context.locale);
  return renderDocument(
    <Layout locale={context.locale} meta={{ title: m.upload.heading, description: m.upload.intro }}>
      <header>
        <h1>{m.siteName}</h1>
      </header>
      <UploadForm context={context} />
    </Layout>,
  );
}
