import { jest } from '@jest/globals';
import express, { type Response } from 'express';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import net from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { sendJson } from '../rest-compat/json-response.js';
import { FREE_JSON_MAX_BYTES } from '../src/graphql/validators.js';
import { ParkedAnswers, stringifyAndRelease } from '../src/graphql/released-answers.js';
import { JsonText } from '../src/db/json-text.js';
import { jsonWithin } from '../src/http/json-text.js';
import { factories } from './support/factories.js';
import { signIn, startTestService, type ApiClient, type TestService } from './support/service.js';

jest.setTimeout(300_000);

const RESPONSE_MAX_BYTES = 8 * 1024 * 1024;
const PAGE = 100;
/** Rows stored before the 64 KiB limit existed (written here with SQL): 1 MiB of design_config each, 100 MiB a page. */
const LEGACY_BYTES = 1024 * 1024;

let service: TestService;
let acme: ApiClient;
let globex: ApiClient;

/** A design config of exactly `bytes` bytes of compact JSON. */
const designOf = (bytes: number) => ({ notes: 'x'.repeat(bytes - '{"notes":""}'.length) });

beforeAll(async () => {
  service = await startTestService({ NOTIFICATION_WORKER: 'off', JOB_WORKER: 'off', EXPIRY_SWEEP_MS: '0' });
  [acme, globex] = await Promise.all([signIn(service, 'acme'), signIn(service, 'globex')]);
  const make = factories(acme);
  const institution = await make.institution();
  for (let batch = 0; batch < PAGE / 10; batch++) {
    await Promise.all(Array.from({ length: 10 }, () => make.template({ institution_uuid: institution.uuid, design_config: designOf(FREE_JSON_MAX_BYTES) })));
  }
  const legacyInstitution = await factories(globex).institution();
  const client = new pg.Client({ connectionString: service.database.ownerUrl });
  await client.connect();
  try {
    await client.query(
      `insert into certificate_templates (uuid, created_at, updated_at, tenant_uuid, institution_uuid, name, version, path, design_config)
       select gen_random_uuid(), now(), now(), (select uuid from tenants where identifier = 'globex'), $1, 'Legacy ' || i, '1', '/legacy.pdf',
              jsonb_build_object('blob', repeat('y', $2::int))
       from generate_series(1, ${PAGE}) i`,
      [legacyInstitution.uuid, LEGACY_BYTES],
    );
  } finally {
    await client.end();
  }
});
afterAll(() => service.stop());

const LIST_QUERY = `query { certificateTemplates(first: ${PAGE}) { nodes { uuid name designConfig } } }`;

describe('free JSON fields are limited to 64 KiB', () => {
  it('accepts a design config at the limit and refuses one byte more, naming the field, in both styles', async () => {
    const institution = await factories(acme).institution();
    const base = { institution_uuid: institution.uuid, name: 'Big', version: '1', path: '/big.pdf' };
    expect((await acme.rest('POST', '/certificate-templates', { ...base, design_config: designOf(FREE_JSON_MAX_BYTES) })).status).toBe(201);

    const rest = await acme.rest('POST', '/certificate-templates', { ...base, design_config: designOf(FREE_JSON_MAX_BYTES + 1) });
    expect(rest.status).toBe(422);
    expect(rest.body.errors).toEqual({ design_config: ['The design config field must not be greater than 64 kilobytes.'] });

    const graphql = await acme.graphql('mutation ($input: CertificateTemplateInput!) { createCertificateTemplate(input: $input) { uuid } }', {
      input: { institutionUuid: institution.uuid, name: 'Big', version: '1', path: '/big.pdf', designConfig: designOf(FREE_JSON_MAX_BYTES + 1) },
    });
    expect(graphql.body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
    expect(graphql.body.errors[0].extensions.errors).toEqual({ designConfig: ['The design config field must not be greater than 64 kilobytes.'] });
  });

  it('counts bytes, not characters: multi-byte text reaches the limit sooner', async () => {
    const institution = await factories(acme).institution();
    const wide = { notes: 'é'.repeat(FREE_JSON_MAX_BYTES / 2) }; // 2 bytes each in UTF-8: over the limit in half as many characters
    const response = await acme.rest('POST', '/certificate-templates', {
      institution_uuid: institution.uuid,
      name: 'Wide',
      version: '1',
      path: '/w.pdf',
      design_config: wide,
    });
    expect(response.status).toBe(422);
    expect(Object.keys(response.body.errors)).toEqual(['design_config']);
  });
});

describe('answers have a byte budget', () => {
  it('lists a full page of templates at the limit in both styles (6.4 MiB, within the 8 MiB budget)', async () => {
    const rest = await acme.rest('GET', `/certificate-templates?per_page=${PAGE}`);
    expect(rest.status).toBe(200);
    expect(rest.body.data).toHaveLength(PAGE);
    expect(rest.body.data.every((row: any) => row.design_config.notes.length === designOf(FREE_JSON_MAX_BYTES).notes.length)).toBe(true);
    const graphql = await acme.graphql(LIST_QUERY);
    expect(graphql.status).toBe(200);
    expect(graphql.body.data.certificateTemplates.nodes).toHaveLength(PAGE);
  });

  it('refuses a page of oversized stored rows with 413 (REST) and RESPONSE_TOO_LARGE (GraphQL) before reading their design configs', async () => {
    service.statements.length = 0;
    const rest = await globex.rest('GET', `/certificate-templates?per_page=${PAGE}`);
    expect(rest.status).toBe(413);
    expect(rest.body).toEqual({ message: `The response would exceed ${RESPONSE_MAX_BYTES} bytes. Ask for fewer rows (first:, per_page) or fewer fields.` });

    const graphql = await globex.graphql(LIST_QUERY);
    expect(graphql.status).toBe(400);
    expect(graphql.body.data).toBeUndefined();
    expect(graphql.body.errors).toEqual([{ message: rest.body.message, extensions: { code: 'RESPONSE_TOO_LARGE' } }]);
    // Refused on the stored sizes: no statement read a design config.
    expect(service.statements.filter((sql) => /design_config"?::text as json/.test(sql))).toEqual([]);
  });

  it('copies stored design configs into the answer as PostgreSQL wrote them, never parsed and written again, in both styles', async () => {
    const stored = `{"notes": "${designOf(FREE_JSON_MAX_BYTES).notes}"}`; // jsonb's text form: a space after the colon
    const raw = async (path: string, init: RequestInit = {}) => {
      const response = await fetch(`${acme.baseUrl}${path}`, { ...init, headers: acme.headers({ 'content-type': 'application/json' }) });
      const text = await response.text();
      return { status: response.status, text, length: Number(response.headers.get('content-length')), bytes: Buffer.byteLength(text) };
    };
    const rest = await raw(`/api/v1/certificate-templates?per_page=${PAGE}`);
    const graphql = await raw('/graphql', { method: 'POST', body: JSON.stringify({ query: LIST_QUERY }) });
    for (const answer of [rest, graphql]) {
      expect(answer.status).toBe(200);
      expect(answer.text.split(stored)).toHaveLength(PAGE + 1);
      expect(answer.length).toBe(answer.bytes);
      expect(answer.bytes).toBeGreaterThan(PAGE * FREE_JSON_MAX_BYTES);
    }
    expect(rest.text).toContain(`"design_config":${stored}`);
    expect(graphql.text).toContain(`"designConfig":${stored}`);
  });

  it('still serves what fits: a page without design configs, one oversized row alone, a smaller page', async () => {
    const names = await globex.graphql(`query { certificateTemplates(first: ${PAGE}) { nodes { uuid name } } }`);
    expect(names.body.data.certificateTemplates.nodes).toHaveLength(PAGE);
    const one = await globex.rest('GET', `/certificate-templates/${names.body.data.certificateTemplates.nodes[0].uuid}`);
    expect(one.status).toBe(200);
    expect(one.body.data.design_config.blob).toHaveLength(LEGACY_BYTES);
    const few = await globex.rest('GET', '/certificate-templates?per_page=5');
    expect(few.status).toBe(200);
    expect(few.body.data).toHaveLength(5);
  });

  it('answers 24 concurrent oversized requests with 413 / RESPONSE_TOO_LARGE, no 500, and memory stays bounded', async () => {
    global.gc?.();
    const before = process.memoryUsage().rss;
    let peak = before;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 5);
    try {
      const responses = await Promise.all(
        Array.from({ length: 24 }, (_, index) =>
          index % 2 === 0 ? globex.rest('GET', `/certificate-templates?per_page=${PAGE}`) : globex.graphql(LIST_QUERY),
        ),
      );
      expect(responses.map((response) => response.status).sort()).toEqual([...Array(12).fill(400), ...Array(12).fill(413)]);
      for (const response of responses.filter((answer) => answer.status === 400)) expect(response.body.errors[0].extensions.code).toBe('RESPONSE_TOO_LARGE');
    } finally {
      clearInterval(sampler);
    }
    // 24 pages of 100 MiB would be 2.4 GB read; refused on stored sizes they cost a few MB.
    expect(peak - before).toBeLessThan(256 * 1024 * 1024);
  });
});

describe('answers are written in slices', () => {
  it('writes what JSON.stringify writes', async () => {
    const value = {
      text: 'ünïcödé ✓ "quoted" \\ \n',
      when: new Date('2026-01-02T03:04:05.000Z'),
      skipped: undefined,
      list: [1, undefined, () => 1, null, { deep: { deeper: { deepest: { bottom: [true, false] } } } }],
      nested: { a: { b: { c: { d: { e: { f: { g: 'seven levels' } } } } } } },
    };
    expect(await jsonWithin(value, 1024 * 1024)).toBe(JSON.stringify(value));
  });

  it('lets the event loop turn while it writes an 8 MiB answer, and stops at the budget', async () => {
    const answer = { data: Array.from({ length: 128 }, (_, index) => ({ index, designConfig: designOf(FREE_JSON_MAX_BYTES) })) };
    let turns = 0;
    let counting = true;
    const count = () => {
      turns++;
      if (counting) setImmediate(count);
    };
    setImmediate(count);
    const text = await jsonWithin(answer, 16 * 1024 * 1024);
    counting = false;
    expect(text).toBe(JSON.stringify(answer));
    // 8 MiB in slices of 256 KiB (32 of them): the loop turned between slices, not once at the end.
    expect(turns).toBeGreaterThanOrEqual(16);
    expect(await jsonWithin(answer, RESPONSE_MAX_BYTES - 1)).toBeUndefined();
  });

  it('sends an answer one slice at a time as the client takes it, never queueing it whole in the process', async () => {
    const answer = { data: Array.from({ length: 128 }, (_, index) => ({ index, designConfig: new JsonText(JSON.stringify(designOf(FREE_JSON_MAX_BYTES))) })) };
    const expected = JSON.stringify(answer);
    let served: Response | undefined;
    const app = express().get('/', (_req, res) => {
      served = res;
      void sendJson(res, 200, answer, 16 * 1024 * 1024);
    });
    const server = app.listen(0);
    await once(server, 'listening');
    const socket = net.connect((server.address() as AddressInfo).port);
    try {
      await once(socket, 'connect');
      socket.pause(); // a client that does not read yet
      socket.write('GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
      await sleep(500);
      // Written in one go, all 8 MiB waited in the process for the socket (and were encoded in one native
      // call); now at most the slice the socket has not taken yet.
      expect(served!.socket!.writableLength).toBeLessThan(1024 * 1024);
      const chunks: Buffer[] = [];
      socket.on('data', (chunk: Buffer) => chunks.push(chunk));
      socket.resume();
      await once(socket, 'end');
      const text = Buffer.concat(chunks).toString('utf8');
      expect(text.slice(text.indexOf('\r\n\r\n') + 4)).toBe(expected);
    } finally {
      socket.destroy();
      server.close();
    }
  });

  it('copies JSON text as it is, counts its bytes, and parses it only for JSON.stringify', async () => {
    const value = { rows: [{ config: new JsonText('{"a": [1, 2.50], "b": "é"}') }, { config: null }] };
    expect(await jsonWithin(value, 1024)).toBe('{"rows":[{"config":{"a": [1, 2.50], "b": "é"}},{"config":null}]}');
    expect(await jsonWithin(value, 64)).toBeUndefined(); // 65 bytes: é is two
    expect(await jsonWithin(value, 65)).toBeDefined();
    expect(JSON.stringify(value)).toBe('{"rows":[{"config":{"a":[1,2.5],"b":"é"}},{"config":null}]}');
  });

  it('parks a GraphQL answer of more than one slice for the handler, and joins none of it', async () => {
    const parked = new ParkedAnswers();
    const stringify = stringifyAndRelease(16 * 1024 * 1024, parked);
    const rows = Array.from({ length: 64 }, (_, index) => ({ index, designConfig: new JsonText(JSON.stringify(designOf(FREE_JSON_MAX_BYTES))) }));
    const expected = JSON.stringify({ data: { templates: rows } });
    const marker = await stringify({ data: { templates: rows } });
    expect(marker.length).toBeLessThan(100);
    const answer = parked.take(marker)!;
    expect(answer.slices.length).toBeGreaterThan(8);
    expect(answer.slices.join('')).toBe(expected);
    expect(answer.bytes).toBe(Buffer.byteLength(expected));
    expect([parked.take(marker), parked.size]).toEqual([undefined, 0]);
    expect(await stringify({ data: { small: true } })).toBe('{"data":{"small":true}}');
  });
});
