import { render } from 'preact-render-to-string';

/** The HTML part of the issued-certificate e-mail; preact escapes every name and the link. */
export function issuedEmailHtml({
  name,
  institutionName,
  courseName,
  url,
  certificateUuid,
  badgeUrl,
}: Record<'name' | 'institutionName' | 'courseName' | 'url' | 'certificateUuid', string> & { badgeUrl: string | null }) {
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
      <p style={{ color: '#666' }}>Certificate ID: {certificateUuid}</p>
    </>,
  );
}
