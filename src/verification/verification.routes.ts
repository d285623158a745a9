import busboy from 'busboy';
import express, { type Request, type RequestHandler, type Response, Router } from 'express';
import type { Config } from '../config.js';
import { WorkerJobError } from '../documents/index.js';
import { DomainError } from '../errors/domain-error.js';
import { formatTimestamp } from '../graphql/scalars.js';
import type { PublicContextOf } from '../http/public-context.js';
import type { VerificationFacts } from './verification-facts.js';
import { renderNotFoundPage, renderVerificationPage } from './verification.page.js';
import { verificationFacts, verifyDocument, type DocumentVerdict } from './verification.service.js';

const stamp = (date: Date | null) => (date ? formatTimestamp(date) : null);

function factsJson(facts: VerificationFacts) {
  return {
    uuid: facts.uuid,
    status: facts.state,
    valid: facts.state === 'valid',
    recipient_name: facts.recipientName,
    institution: facts.institutionName,
    course: facts.courseName,
    issued_at: stamp(facts.issuedAt),
    expires_at: stamp(facts.expiresAt),
    revoked_at: stamp(facts.revokedAt),
    revocation_reason: facts.revocationReason,
    verification_url: facts.verificationUrl,
    documents: facts.documents.map((doc) => ({ type: doc.type, name: doc.name, url: doc.url })),
  };
}

function verdictJson(verdict: DocumentVerdict) {
  return {
    verdict: verdict.verdict,
    document_type: verdict.documentType,
    claimed_certificate_uuid: verdict.claimedCertificateUuid,
    signatures: verdict.signatures.map((signature) => ({
      intact: signature.intact,
      covers_whole_file: signature.coversWholeFile,
      signed_by_issuer: signature.signedByIssuer,
      signer_common_name: signature.signerCommonName,
      fingerprint_sha256: signature.fingerprintSha256,
      signed_at: stamp(signature.signedAt),
    })),
    certificate: verdict.certificate ? factsJson(verdict.certificate) : null,
  };
}

/** A GET /verify/{uuid} handler: looks the certificate's public facts up and hands them (or null) to `respond`. */
function factsRoute(publicContext: PublicContextOf, respond: (res: Response, facts: VerificationFacts | null) => void): RequestHandler<{ uuid: string }> {
  return async (req, res, next) => {
    try {
      respond(res, await verificationFacts(publicContext(req), req.params.uuid));
    } catch (error) {
      next(error);
    }
  };
}

/** GET /verify/{uuid}: the public, server-rendered verification page. */
export function verificationPages(publicContext: PublicContextOf): Router {
  const router = Router();
  router.get(
    '/verify/:uuid',
    factsRoute(publicContext, (res, facts) => {
      res.set('Cache-Control', 'no-cache').type('html');
      if (!facts) res.status(404).send(renderNotFoundPage());
      else res.send(renderVerificationPage(facts));
    }),
  );
  return router;
}

/** The uploaded PDF, as a raw `application/pdf` body or the one file of a multipart form. */
async function uploadedPdf(req: Request, maxBytes: number): Promise<Buffer> {
  if (Buffer.isBuffer(req.body)) return req.body;
  if (!req.is('multipart/form-data')) throw new DomainError('UNSUPPORTED_MEDIA_TYPE', 'Send the PDF as application/pdf or as a multipart form file.');
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let files = 0;
    // busboy reports its size limit when a file reaches it, so a file of exactly the maximum needs one byte more.
    const form = busboy({ headers: req.headers, limits: { files: 1, fileSize: maxBytes + 1, fields: 16, fieldSize: 1024 } });
    form.on('file', (_name, stream) => {
      files++;
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      // A truncated form fails the file stream too; unheard, that error would end the process.
      stream.on('error', () => reject(new DomainError('BAD_REQUEST', 'The multipart body could not be read.')));
      stream.on('limit', () => reject(new DomainError('PAYLOAD_TOO_LARGE', `The file may not be greater than ${maxBytes} bytes.`)));
    });
    form.on('error', () => reject(new DomainError('BAD_REQUEST', 'The multipart body could not be read.')));
    form.on('close', () =>
      files
        ? resolve(Buffer.concat(chunks))
        : reject(new DomainError('BAD_USER_INPUT', 'The file field is required.', { file: ['The file field is required.'] })),
    );
    req.pipe(form);
  });
}

/** Public JSON: GET /verify/{uuid} (the page's facts) and POST /verify (is this PDF ours, intact, and whose?). */
export function verificationApi(publicContext: PublicContextOf, config: Pick<Config, 'verifyMaxBytes'>): Router {
  const router = Router();
  router.get(
    '/verify/:uuid',
    factsRoute(publicContext, (res, facts) => {
      if (!facts) res.status(404).json({ message: 'Certificate not found.' });
      else res.json({ data: factsJson(facts) });
    }),
  );
  router.post('/verify', express.raw({ type: 'application/pdf', limit: config.verifyMaxBytes }), async (req, res, next) => {
    try {
      const pdf = await uploadedPdf(req, config.verifyMaxBytes);
      res.json({ data: verdictJson(await verifyDocument(publicContext(req), pdf)) });
    } catch (error) {
      next(error instanceof WorkerJobError && error.kind === 'busy' ? new DomainError('SERVICE_UNAVAILABLE', error.message) : error);
    }
  });
  return router;
}
