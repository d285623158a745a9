/**
 * Draws the two example templates of docs/templates.md as a recipient gets them: the layout filled
 * with a sample graduate, signed (the signature stamp included), rasterised for the docs.
 * `npm run build && node examples/templates/draw-examples.mjs` → docs/template-*.png.
 * The layouts name their images by uuid; here those uuids stand for the PNGs beside this script
 * (upload them with POST /files and put the answered uuids in the JSON to use the designs).
 */
import { Buffer } from 'node:buffer';
import { readFileSync, writeFileSync } from 'node:fs';
import { URL } from 'node:url';
import { createSigningIdentity, prepareSigner, sealPlacement, signPdf } from '../../dist/src/documents/index.js';
import { renderLayout } from '../../dist/src/documents/layout-renderer.js';
import { rasterizeFirstPage } from '../../dist/src/documents/page-raster.js';
import { fillPlaceholders } from '../../dist/src/templates/placeholders.js';
import { readLayout } from '../../dist/src/templates/template-layout.js';

const here = (name) => new URL(name, import.meta.url);
const IMAGES = {
  '5b0f4c1e-0c1a-4d7e-9a3b-6f2d8e4c1a01': 'crest.png',
  '5b0f4c1e-0c1a-4d7e-9a3b-6f2d8e4c1a02': 'signature.png',
};
const uuid = '01a214d2-9398-712b-8104-bf12892b13c1';
const verificationUrl = `https://credentials.example.edu/verify/${uuid}`;
const values = {
  values: {
    'student.name': 'Ana Beatriz Nguyễn',
    'course.name': 'Data Engineering',
    'course.workload': 360,
    'institution.name': 'Universidade Federal do Exemplo',
    issued_at: new Date('2026-11-20T00:00:00Z'),
    grade: 9.5,
    'certificate.uuid': uuid,
    'enrollment.completed_at': new Date('2026-11-01T00:00:00Z'),
  },
  attributes: {
    honours: 'with distinction',
    rector: 'Prof. Dr. Helena Moreira Costa',
    summary:
      'Ten modules over two semesters: relational and stream databases, statistics for data work, batch and streaming pipelines, and data platforms in the cloud, closed by a capstone project with an industry partner.',
  },
  locale: 'en',
};
const signer = prepareSigner(createSigningIdentity({ institutionName: 'Universidade Federal do Exemplo', country: 'BR' }));
const files = Object.fromEntries(
  Object.entries(IMAGES).map(([id, name]) => [id, { mimeType: 'image/png', bytes: new Uint8Array(readFileSync(here(name))), cacheKey: `example/${id}` }]),
);

for (const [json, picture] of [
  ['formal-diploma.json', 'template-rendered.png'],
  ['course-certificate.json', 'template-course-certificate.png'],
]) {
  const config = JSON.parse(readFileSync(here(json), 'utf8'));
  const { layout, errors } = readLayout(config);
  if (!layout) throw new Error(`${json}: ${JSON.stringify(errors)}`);
  const elements = layout.elements.map((element) => (element.type === 'text' ? { ...element, text: fillPlaceholders(element.text, values) } : element));
  const pdf = await renderLayout({ layout: { ...layout, elements }, files, verificationUrl });
  const signed = await signPdf(Buffer.from(pdf), signer, {
    credentialUuid: uuid,
    verificationUrl,
    signerName: 'Universidade Federal do Exemplo',
    location: 'BR',
    reason: 'Certificate: Data Engineering',
    seal: sealPlacement(config),
  });
  writeFileSync(new URL(`../../docs/${picture}`, import.meta.url), await rasterizeFirstPage(signed, 1400));
  console.log(`docs/${picture}`);
}
