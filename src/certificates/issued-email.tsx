import { render } from 'preact-render-to-string';
import type { IssuedEmailMessages } from './issued-email-messages.js';

/** The HTML part of the issued-certificate e-mail; preact escapes every name and the link. */
export function issuedEmailHtml({
  messages: m,
  name,
  institutionName,
  courseName,
  url,
  certificateUuid,
  badgeUrl,
}: Record<'name' | 'institutionName' | 'courseName' | 'url' | 'certificateUuid', string> & { badgeUrl: string | null; messages: IssuedEmailMessages }) {
  return render(
    <>
      <p>{m.greeting(name)}</p>
      <p>
        {m.issued.before(institutionName)}
        <strong>{courseName}</strong>
        {m.issued.after}
      </p>
      <p>
        <a href={url}>{m.verifyLink}</a>
        {m.verifyLinkAfter}
      </p>
      {badgeUrl && (
        <p>
          <a href={badgeUrl}>{m.badgeLink}</a>
          {m.badgeLinkAfter}
        </p>
      )}
      <p style={{ color: '#666' }}>
        {m.certificateId}: {certificateUuid}
      </p>
    </>,
  );
}
