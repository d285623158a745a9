import express, { type RequestHandler, type Response, Router } from 'express';
import type { Config } from '../config.js';
import { WorkerJobError } from '../documents/index.js';
import { DomainError } from '../errors/domain-error.js';
import { formatTimestamp } from '../graphql/scalars.js';
import type { PublicContextOf } from '../http/public-context.js';
import type { VerificationFacts } from './verification-facts.js';
import { singleUpload } from '../http/single-upload.js';
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

/** A GET /api/v1/verify/{uuid} handler: looks the certificate's public facts up and hands them (or null) to `respond`. */
function factsRoute(publicContext: PublicContextOf, respond: (res: Response, facts: VerificationFacts | null) => void): RequestHandler<{ uuid: string }> {
  return async (req, res, next) => {
    try {
      respond(res, await verificationFacts(publicContext(req), req.params.uuid));
    } catch (error) {
      next(error);
    }
  };
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
      const pdf = await singleUpload(req, config.verifyMaxBytes, 'Send the PDF as application/pdf or as a multipart form file.');
      res.json({ data: verdictJson(await verifyDocument(publicContext(req), pdf)) });
    } catch (error) {
      next(error instanceof WorkerJobError && error.kind === 'busy' ? new DomainError('SERVICE_UNAVAILABLE', error.message) : error);
    }
  });
  return router;
}
