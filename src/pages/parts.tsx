import type { ComponentChildren } from 'preact';
import type { Locale } from './locale.js';
import { messagesFor } from './messages.js';

/** What every page needs to know about the request it answers. */
export interface PageContext {
  locale: Locale;
  /** The language came from `?lang=`; the upload form carries it to the result page. */
  explicitLocale: boolean;
  /** VERIFY_MAX_BYTES, announced next to the upload field. */
  verifyMaxBytes: number;
}

export type Tone = 'good' | 'bad' | 'warn' | 'neutral';

export const STATE_TONE = { valid: 'good', revoked: 'bad', expired: 'warn' } as const satisfies Record<string, Tone>;

/** The coloured status word; the text says it, the colour only repeats it. */
export function StatusBadge({ tone, children }: { tone: Tone; children: ComponentChildren }) {
  return <strong class={`badge status-badge tone-${tone}`}>{children}</strong>;
}

/** One label/value line of a fact list; nothing when there is no value. */
export function FactRow({ label, value }: { label: string; value: string | null | undefined }) {
  if (!value) return null;
  return (
    <div class="row">
      <dt>{label}</dt>
      <dd>{value}</dd>
    </div>
  );
}

/** A byte limit as people read it: "20 MB", "2 kB" (binary multiples, as VERIFY_MAX_BYTES counts). */
function fileSize(bytes: number, locale: Locale): string {
  const [value, unit] = bytes >= 1024 * 1024 ? [bytes / (1024 * 1024), 'megabyte'] : [bytes / 1024, 'kilobyte'];
  return new Intl.NumberFormat(locale, { style: 'unit', unit, maximumFractionDigits: 1 }).format(value);
}

/** The no-JavaScript PDF check: a plain multipart POST to /verify answered by a result page. */
export function UploadForm({ context }: { context: PageContext }) {
  const m = messagesFor(context.locale).upload;
  const action = context.explicitLocale ? `/verify?lang=${context.locale}` : '/verify';
  return (
    <section class="upload" aria-labelledby="upload-heading">
      <h2 id="upload-heading">{m.heading}</h2>
      <p>{m.intro}</p>
      <form method="post" action={action} encType="multipart/form-data">
        <label for="pdf-file">{m.fileLabel}</label>
        <input id="pdf-file" type="file" name="file" accept="application/pdf,.pdf" required aria-describedby="pdf-file-hint" />
        <p class="hint" id="pdf-file-hint">
          {m.limit(fileSize(context.verifyMaxBytes, context.locale))}
        </p>
        <div>
          <button class="button" type="submit">
            {m.submit}
          </button>
        </div>
      </form>
    </section>
  );
}

export const tooLargeMessage = (context: PageContext) => messagesFor(context.locale).problem.tooLarge(fileSize(context.verifyMaxBytes, context.locale));
