import { createHash } from 'node:crypto';
import type { RequestContext } from '../context/request-context.js';
import { Certificate } from '../certificates/certificate.entity.js';
import { placeholderValues, type DrawnParties } from '../certificates/certificate-drawing.js';
import { verificationUrl } from '../certificates/certificate-rules.js';
import { Course } from '../courses/course.entity.js';
import { referenced } from '../db/lookup.js';
import { DocumentError } from '../documents/document-error.js';
import type { LayoutDrawing, PreviewFormat } from '../documents/index.js';
import { Enrollment } from '../enrollments/enrollment.entity.js';
import { conflict, invalid, notFound } from '../errors/domain-error.js';
import { Institution } from '../institutions/institution.entity.js';
import { Student } from '../students/student.entity.js';
import { CertificateTemplate } from './certificate-template.entity.js';
import { attributeKeys, type PlaceholderValues } from './placeholders.js';
import { templateDrawing } from './template-drawing.js';
import { readLayout } from './template-layout.js';

export const PREVIEW_MEDIA_TYPES: Record<PreviewFormat, string> = { png: 'image/png', pdf: 'application/pdf' };

/** The uuid sample previews print and link to: not a certificate of anyone. */
const SAMPLE_CERTIFICATE_UUID = '00000000-0000-4000-8000-000000000000';

export interface Preview {
  bytes: Buffer;
  mediaType: string;
  /** The key of what was drawn: the same ETag means the same picture. */
  etag: string;
}

/**
 * A template's layout drawn with sample data, or with the data of one of the tenant's certificates,
 * as a PDF or a PNG, on the tenants' document pool (the limits of issuance). A template or
 * certificate of another tenant is a 404; a template without a layout, a 409.
 */
export async function templatePreview(
  ctx: RequestContext,
  templateUuid: string,
  request: { format: PreviewFormat; certificateUuid?: string },
): Promise<Preview> {
  const template = await ctx.em.findOne(CertificateTemplate, { uuid: templateUuid }, { populate: ['designConfig'] });
  if (!template) throw notFound('Certificate template');
  const { layout } = readLayout(template.designConfig, template.path);
  if (!layout) throw conflict('The template has no layout (design_config.elements) to preview.');
  const { values, url } = request.certificateUuid
    ? await certificateData(ctx, request.certificateUuid)
    : await sampleData(
        ctx,
        template,
        layout.elements.flatMap((element) => (element.type === 'text' ? attributeKeys(element.text) : [])),
      );
  const drawing = (await templateDrawing(ctx, template, values, url))!;
  const key = previewKey(ctx, template, drawing, request.format);
  const mediaType = PREVIEW_MEDIA_TYPES[request.format];
  const cached = ctx.previews.get(key);
  if (cached) return { bytes: cached, mediaType, etag: `"${key}"` };
  let bytes: Buffer;
  try {
    bytes = await ctx.documents.render(drawing, request.format, ctx.jobOwner);
  } catch (error) {
    if (error instanceof DocumentError) throw invalid({ designConfig: [error.message] }, error.reason);
    throw error;
  }
  ctx.previews.set(key, bytes);
  return { bytes, mediaType, etag: `"${key}"` };
}

/** Files are never changed under their uuid, so the drawing without their bytes says what the picture shows. */
function previewKey(ctx: RequestContext, template: CertificateTemplate, drawing: LayoutDrawing, format: PreviewFormat): string {
  const drawn = { tenant: ctx.tenant.uuid, template: template.uuid, version: template.version, layout: drawing.layout, url: drawing.verificationUrl, format };
  return createHash('sha256').update(JSON.stringify(drawn)).digest('base64url').slice(0, 32);
}

async function sampleData(ctx: RequestContext, template: CertificateTemplate, attributes: string[]): Promise<{ values: PlaceholderValues; url: string }> {
  const institution = await referenced(ctx.em, Institution, template.institution);
  const today = new Date(new Date().toISOString().slice(0, 10));
  const parties: DrawnParties = {
    institution,
    student: { name: 'Maria Exemplo da Silva', socialName: null },
    course: { name: 'Sample Course', workload: 120 },
    enrollment: { grade: 9.5, completedAt: today },
  };
  const sample = { uuid: SAMPLE_CERTIFICATE_UUID, attributes: Object.fromEntries(attributes.map((key) => [key, `[${key}]`])) };
  return { values: placeholderValues(parties, sample, today), url: verificationUrl(sample, ctx.publicBaseUrl) };
}

async function certificateData(ctx: RequestContext, certificateUuid: string): Promise<{ values: PlaceholderValues; url: string }> {
  const certificate = await ctx.em.findOne(Certificate, { uuid: certificateUuid });
  if (!certificate) throw notFound('Certificate');
  const parties: DrawnParties = {
    institution: await referenced(ctx.em, Institution, certificate.institution),
    student: await referenced(ctx.em, Student, certificate.student),
    course: await referenced(ctx.em, Course, certificate.course),
    enrollment: certificate.enrollment ? await referenced(ctx.em, Enrollment, certificate.enrollment) : null,
  };
  return { values: placeholderValues(parties, certificate, certificate.issuedAt ?? new Date()), url: verificationUrl(certificate, ctx.publicBaseUrl) };
}
