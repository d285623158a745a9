import { render } from 'preact-render-to-string';

/** The HTML part of the issued-certificate e-mail; preact escapes every name and the link. */
export function issuedEmailHtml({
  name,
  institutionName,
  courseName,
  url,
  certificateUuid,
}: Record<'name' | 'institutionName' | 'courseName' | 'url' | 'certificateUuid', string>) {
  return render(
    <>
      <p>Dear {name},</p>
      <p>
        {institutionName} has issued your certificate for <strong>{courseName}</strong>.
      </p>
      <p>
        <a href={url}>View and verify your certificate</a> — the page also has the signed PDF and your transcript.
      </p>
      <p style={{ color: '#666' }}>Certificate ID: {certificateUuid}</p>
    </>,
  );
}
