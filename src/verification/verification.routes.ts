import { type RequestHandler, type Response, Router } from 'express';
import { ANCHOR_CHECK_SCHEMA, ANCHOR_STATE_SCHEMA, anchorCheckJson, anchorStateJson } from '../anchoring/anchor-json.js';
import type { Config } from '../config.js';
import { certificateWithdrawn } from '../certificates/public-standing.js';
import { notFound } from '../errors/domain-error.js';
import { formatTimestamp } from '../timestamps.js';
import type { PublicContextOf } from '../http/public-context.js';
import type { VerificationFacts } from './verification-facts.js';
import { singleUpload } from '../http/single-upload.js';
import { verificationFacts, verifyDocument, type DocumentVerdict } from './verification.service.js';
import { describeRoute, jsonError, singleFileBody, TOO_MANY_REQUESTS, type JsonSchema } from '../http/route-contract.js';
import { rawUpload } from '../http/raw-upload.js';

const text = { type: 'string' };
const nullableText = { type: ['string', 'null'] };
const nullableTime = { type: ['string', 'null'], format: 'date-time' };

const FACTS: JsonSchema = {
  type: 'object',
  properties: {
    uuid: { type: 'string', format: 'uuid' },
    status: { type: 'string', enum: ['valid', 'revoked', 'expired'] },
    valid: { type: 'boolean' },
    recipient_name: text,
    institution: text,
    course: text,
    issued_at: nullableTime,
    expires_at: nullableTime,
    revoked_at: nullableTime,
    revocation_reason: nullableText,
    verification_url: { type: 'string', format: 'uri' },
    documents: {
      type: 'array',
      items: { type: 'object', properties: { type: text, name: text, url: { type: 'string', format: 'uri' } }, required: ['type', 'name', 'url'] },
    },
    anchor: ANCHOR_STATE_SCHEMA,
  },
  required: ['uuid', 'status', 'valid', 'recipient_name', 'institution', 'course', 'verification_url', 'documents'],
};

const VERDICT: JsonSchema = {
  type: 'object',
  properties: {
    verdict: { type: 'string', enum: ['authentic', 'modified_after_signing', 'not_issued_here', 'unsigned', 'invalid'] },
    document_type: nullableText,
    claimed_certificate_uuid: { type: ['string', 'null'], format: 'uuid' },
    signatures: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          intact: { type: 'boolean' },
          covers_whole_file: { type: 'boolean' },
          signed_by_issuer: { type: 'boolean' },
          signer_common_name: nullableText,
          fingerprint_sha256: nullableText,
          signed_at: nullableTime,
        },
      },
    },
    certificate: { anyOf: [FACTS, { type: 'null' }], description: 'Only when the verdict is `authentic`.' },
    anchor: {
      ...ANCHOR_CHECK_SCHEMA,
      description: `Only when the verdict is \`authentic\`: the certificate anchored and its anchored credential listing this file's SHA-256. ${ANCHOR_CHECK_SCHEMA.description as string}`,
    },
  },
  required: ['verdict', 'signatures', 'certificate'],
};

const data = (schema: JsonSchema) => ({ 'application/json': { type: 'object', properties: { data: schema }, required: ['data'] } });

export const VERIFICATION_ROUTES = {
  facts: describeRoute({
    method: 'get',
    base: '/api/v1',
    path: '/verify/:uuid',
    tag: 'verification',
    summary: "A certificate's public facts",
    description: 'What the verification page shows, as JSON. Public: no token, no tenant.',
    responses: {
      200: { description: 'The facts.', content: data(FACTS) },
      404: jsonError('No such certificate (or not issued).'),
      410: jsonError('Withdrawn: the certificate or its institution was deleted (`reason: CERTIFICATE_WITHDRAWN`); nothing more is told.'),
      429: TOO_MANY_REQUESTS,
    },
  }),
  document: describeRoute({
    method: 'post',
    base: '/api/v1',
    path: '/verify',
    tag: 'verification',
    summary: 'Check a PDF: issued here, intact, and whose?',
    description: 'Public. One top-level `verdict`; certificate facts only when `authentic`.',
    requestBody: singleFileBody(['application/pdf'], 'The PDF, as `application/pdf` or as the file of a multipart form.'),
    responses: {
      200: { description: 'The verdict.', content: data(VERDICT) },
      400: jsonError('The multipart body could not be read.'),
      413: jsonError('Over VERIFY_MAX_BYTES.'),
      415: jsonError('Neither a PDF nor a multipart form.'),
      422: { description: 'No file in the form.', content: { 'application/json': { $ref: '#/components/schemas/ValidationError' } } },
      429: TOO_MANY_REQUESTS,
      503: jsonError('Every document worker is busy; `Retry-After` says when to come back.'),
    },
  }),
};

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
    anchor: anchorStateJson(facts.anchor),
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
    anchor: anchorCheckJson(verdict.anchor),
  };
}

/** A GET /api/v1/verify/{uuid} handler: looks the certificate's public facts up and hands them (or null, or `withdrawn`) to `respond`. */
function factsRoute(
  publicContext: PublicContextOf,
  respond: (res: Response, facts: VerificationFacts | 'withdrawn' | null) => void,
): RequestHandler<{ uuid: string }> {
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
    VERIFICATION_ROUTES.facts.path,
    factsRoute(publicContext, (res, facts) => {
      if (!facts) throw notFound('Certificate');
      else if (facts === 'withdrawn') throw certificateWithdrawn();
      else res.json({ data: factsJson(facts) });
    }),
  );
  router.post(VERIFICATION_ROUTES.document.path, rawUpload({ type: 'application/pdf', limit: config.verifyMaxBytes }), async (req, res, next) => {
    try {
      const pdf = await singleUpload(req, config.verifyMaxBytes, 'Send the PDF as application/pdf or as a multipart form file.');
      res.json({ data: verdictJson(await verifyDocument(publicContext(req), pdf)) });
    } catch (error) {
      next(error);
    }
  });
  return router;
}
