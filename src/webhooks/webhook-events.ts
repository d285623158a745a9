/**
 * The events a webhook endpoint can subscribe to, and the JSON body each delivery carries
 * (Standard Webhooks' recommended shape: `type`, `timestamp`, `data`).
 */
export const WEBHOOK_EVENT_TYPES = [
  'certificate.issued',
  'certificate.updated',
  'certificate.revoked',
  'certificate.expired',
  'certificate.anchored',
  'file.uploaded',
  'job.finished',
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

export const isWebhookEventType = (value: unknown): value is WebhookEventType => WEBHOOK_EVENT_TYPES.includes(value as WebhookEventType);

/** What a certificate event says about the certificate (REST's snake_case, so both styles' integrators read one shape). */
export interface CertificateFacts {
  uuid: string;
  status: string;
  issuedAt: Date | null;
  expiresAt: Date | null;
  revokedAt: Date | null;
  revocationReason: string | null;
  publicVerificationUrl: string | null;
  institutionUuid: string;
  courseUuid: string;
  studentUuid: string;
}

/** What `job.finished` says: the job's counts once its last item is done (`GET /jobs/{uuid}` has the results). */
export interface JobFacts {
  uuid: string;
  kind: string;
  total: number;
  done: number;
  failed: number;
  finishedAt: Date;
}

export interface FileFacts {
  uuid: string;
  originalName: string;
  mimeType: string;
  size: number;
  hash: string;
}

/** One event to queue: its type, the record it is about (deliveries about one record keep their order), and the body's `data`. */
export interface WebhookEvent {
  type: WebhookEventType;
  subjectUuid: string;
  data: Record<string, unknown>;
}

const iso = (value: Date | null) => value?.toISOString() ?? null;

export function certificateEvent(type: Extract<WebhookEventType, `certificate.${string}`>, certificate: CertificateFacts): WebhookEvent {
  return {
    type,
    subjectUuid: certificate.uuid,
    data: {
      uuid: certificate.uuid,
      status: certificate.status,
      issued_at: iso(certificate.issuedAt),
      expires_at: iso(certificate.expiresAt),
      revoked_at: iso(certificate.revokedAt),
      revocation_reason: certificate.revocationReason,
      public_verification_url: certificate.publicVerificationUrl,
      institution_uuid: certificate.institutionUuid,
      course_uuid: certificate.courseUuid,
      student_uuid: certificate.studentUuid,
    },
  };
}

export function fileUploadedEvent(file: FileFacts): WebhookEvent {
  return {
    type: 'file.uploaded',
    subjectUuid: file.uuid,
    data: { uuid: file.uuid, original_name: file.originalName, mime_type: file.mimeType, size: file.size, sha256: file.hash },
  };
}

export function jobFinishedEvent(job: JobFacts): WebhookEvent {
  return {
    type: 'job.finished',
    subjectUuid: job.uuid,
    data: { uuid: job.uuid, kind: job.kind, status: 'completed', total: job.total, done: job.done, failed: job.failed, finished_at: iso(job.finishedAt) },
  };
}

/** The exact bytes sent (and signed) for an event; stored once so every retry sends the same body. */
export function webhookBody(event: WebhookEvent, at: Date): string {
  return JSON.stringify({ type: event.type, timestamp: at.toISOString(), data: event.data });
}
