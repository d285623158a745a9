import { render } from 'preact-render-to-string';
import type { Messages } from '../i18n/messages.js';

/** The HTML part of the issued-certificate e-mail; preact escapes every name and the link. */
export function issuedEmailHtml({
  m,
  name,
  institutionName,
  courseName,
  url,
  certificateUuid,
  badgeUrl,
}: Record<'name' | 'institutionName' | 'courseName' | 'url' | 'certificateUuid', string> & { m: Messages['email']; badgeUrl: string | null }) {
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
      <p style={{ color: '#666' }}>
        {m.certificateId}: {certificateUuid}
      </p>
    </>,
  );
}
