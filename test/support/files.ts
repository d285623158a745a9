import { createHash, randomUUID } from 'node:crypto';
import { crc32 } from 'node:zlib';
import type { ApiClient, ApiResponse } from './service.js';

/** Minimal documents of each accepted type; `label` makes the content (and so the hash) unique. */
export function pdfBytes(label: string = randomUUID(), size = 0): Buffer {
  const head = Buffer.from(`%PDF-1.7\n% ${label}\n`, 'latin1');
  const tail = Buffer.from('\n%%EOF\n', 'latin1');
  const padding = Math.max(0, size - head.length - tail.length);
  return Buffer.concat([head, Buffer.alloc(padding, 0x20), tail]);
}

/** A PNG signature and IHDR chunk declaring `width`×`height` (what badge image limits read), then the label. */
export function pngBytes(label: string = randomUUID(), width = 1, height = 1): Buffer {
  const header = Buffer.alloc(17);
  header.write('IHDR', 0, 'latin1');
  header.writeUInt32BE(width, 4);
  header.writeUInt32BE(height, 8);
  header.set([8, 6, 0, 0, 0], 12);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(header));
  const length = Buffer.from([0, 0, 0, 13]);
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), length, header, crc, Buffer.from(label, 'latin1')]);
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

/** The uuid of one uploaded file of the api's tenant; throws unless the upload answered 201. */
export async function uploadedUuid(api: ApiClient, bytes: Uint8Array, name: string): Promise<string> {
  const response = await upload(api, [[bytes, name]]);
  if (response.status !== 201) throw new Error(`upload answered ${response.status}: ${JSON.stringify(response.body)}`);
  return response.body.data[0].uuid;
}

/** One uploaded PDF of the api's tenant, e.g. the `file_uuid` of a certificate. */
export async function uploadPdf(api: ApiClient, label?: string): Promise<Record<string, any>> {
  const response = await upload(api, [[pdfBytes(label), 'certificate.pdf']]);
  if (response.status !== 201) throw new Error(`upload answered ${response.status}: ${JSON.stringify(response.body)}`);
  return response.body.data[0];
}
