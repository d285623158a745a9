import { createHash, randomUUID } from 'node:crypto';
import type { ApiClient, ApiResponse } from './service.js';

/** Minimal documents of each accepted type; `label` makes the content (and so the hash) unique. */
export function pdfBytes(label: string = randomUUID(), size = 0): Buffer {
  const head = Buffer.from(`%PDF-1.7\n% ${label}\n`, 'latin1');
  const tail = Buffer.from('\n%%EOF\n', 'latin1');
  const padding = Math.max(0, size - head.length - tail.length);
  return Buffer.concat([head, Buffer.alloc(padding, 0x20), tail]);
}

export function pngBytes(label: string = randomUUID()): Buffer {
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.from(`IHDR ${label}`, 'latin1')]);
}

export function svgBytes(label: string = randomUUID()): Buffer {
  return Buffer.from(`<?xml version="1.0" encoding="UTF-8"?>\n<!-- ${label} -->\n<svg xmlns="http://www.w3.org/2000/svg" width="1" height="1"/>\n`);
}

export const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

export type Part = [content: Uint8Array, filename: string];

/** A REST upload body: every part under `files[]`, as Laravel clients send them. */
export function uploadForm(parts: Part[], field = 'files[]'): FormData {
  const form = new FormData();
  for (const [content, filename] of parts) form.append(field, new Blob([new Uint8Array(content)]), filename);
  return form;
}

/** POST /files with the given parts. */
export function upload(api: ApiClient, parts: Part[]): Promise<ApiResponse> {
  return api.rest('POST', '/files', uploadForm(parts));
}

/** One uploaded PDF of the api's tenant, e.g. the `file_uuid` of a certificate. */
export async function uploadPdf(api: ApiClient, label?: string): Promise<Record<string, any>> {
  const response = await upload(api, [[pdfBytes(label), 'certificate.pdf']]);
  if (response.status !== 201) throw new Error(`upload answered ${response.status}: ${JSON.stringify(response.body)}`);
  return response.body.data[0];
}
