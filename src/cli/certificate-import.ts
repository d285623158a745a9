import { readFile, writeFile } from 'node:fs/promises';
import { SingleBar } from 'cli-progress';
import { parse } from 'csv-parse/sync';
import { stringify } from 'csv-stringify/sync';
import { issueOne } from '../certificates/certificate-batch.js';
import { CertificateInput } from '../certificates/certificate.inputs.js';
import type { RequestContext } from '../context/request-context.js';
import { DomainError } from '../errors/domain-error.js';
import { snakeCase, toCamel } from '../identifier-case.js';
import type { StoredItemResult } from '../jobs/job.views.js';

/**
 * The columns an import file may have (its header line names them, in any order): the course by
 * `course_uuid` or `course_external_id`, the student by `student_uuid`, `student_external_id` or the
 * `recipient_*` columns (one-call issuance, docs/api.md); `file_uuid` unless the template draws the certificate.
 */
export const IMPORT_COLUMNS = [
  'institution_uuid',
  'course_uuid',
  'course_external_id',
  'student_uuid',
  'student_external_id',
  'recipient_email',
  'recipient_name',
  'recipient_date_of_birth',
  'recipient_external_id',
  'external_id',
  'locale',
  'notify',
  'file_uuid',
  'cohort_uuid',
  'enrollment_uuid',
  'template_uuid',
  'public_verification_url',
  'expires_at',
  'blockchain_tx_hash',
  'blockchain_tx_url',
  'finish',
];

/** The results file's columns: the input's line number, `draft` | `issued` | `failed`, the certificate, the error. */
const RESULT_COLUMNS = ['line', 'status', 'certificate_uuid', 'error'];

export const defaultResultsPath = (input: string) => input.replace(/(\.csv)?$/i, '.results.csv');

interface ImportLine {
  line: number;
  record: Record<string, string>;
}

function readLines(text: string): ImportLine[] {
  let rows: { info: { lines: number }; record: Record<string, string> }[];
  try {
    rows = parse(text, { columns: true, bom: true, skip_empty_lines: true, trim: true, info: true });
  } catch (error) {
    throw new DomainError('BAD_USER_INPUT', `the file is not readable CSV: ${(error as Error).message}`);
  }
  const unknown = Object.keys(rows[0]?.record ?? {}).filter((column) => !IMPORT_COLUMNS.includes(column));
  if (unknown.length > 0) throw new DomainError('BAD_USER_INPUT', `unknown column(s) ${unknown.join(', ')}; the columns are ${IMPORT_COLUMNS.join(', ')}`);
  return rows.map(({ info, record }) => ({ line: info.lines, record }));
}

/** A line as the input of `createCertificate`: empty cells left out, `finish` as a boolean, `expires_at` as a date. */
function inputOf(record: Record<string, string>): CertificateInput | { invalid: string } {
  const input = new CertificateInput();
  for (const [column, cell] of Object.entries(record)) {
    if (cell === '') continue;
    if (column === 'finish' || column === 'notify') input[column] = /^(true|1|yes)$/i.test(cell);
    else if (column.startsWith('recipient_')) input.recipient = { ...input.recipient!, [toCamel(column.slice('recipient_'.length))]: cell };
    else if (column === 'expires_at') {
      const date = new Date(cell);
      if (Number.isNaN(date.getTime())) return { invalid: 'expires_at: The expires at must be a valid date.' };
      input.expiresAt = date;
    } else Object.assign(input, { [toCamel(column)]: cell });
  }
  return input;
}

function errorText(result: StoredItemResult): string {
  const fields = Object.entries(result.error?.errors ?? {});
  if (fields.length === 0) return result.error?.message ?? '';
  return fields.map(([field, messages]) => `${snakeCase(field)}: ${messages.join(' ')}`).join('; ');
}

/**
 * `certificates:import`: each line of the CSV is one `createCertificate` of the tenant (issued when
 * its `finish` is true), independent of the others; a progress bar on stderr; one result row per line.
 */
export async function importCertificates(ctx: RequestContext, file: string, resultsPath: string): Promise<{ created: number; failed: number }> {
  const text = await readFile(file, 'utf8').catch(() => {
    throw new DomainError('BAD_USER_INPUT', `cannot read ${file}`);
  });
  const lines = readLines(text);
  const bar = new SingleBar({
    stream: process.stderr,
    noTTYOutput: true,
    notTTYSchedule: 1000,
    format: 'importing [{bar}] {value}/{total} lines | {failed} failed',
  });
  bar.start(lines.length, 0, { failed: 0 });
  const rows: string[][] = [];
  let failed = 0;
  for (const [index, { line, record }] of lines.entries()) {
    const input = inputOf(record);
    const result: StoredItemResult =
      'invalid' in input
        ? { index, uuid: null, status: 'failed', error: { code: 'BAD_USER_INPUT', message: input.invalid } }
        : await issueOne(ctx, index, input);
    if (result.status === 'failed') failed++;
    rows.push([String(line), result.status, result.uuid ?? '', 'invalid' in input ? input.invalid : errorText(result)]);
    bar.increment(1, { failed });
  }
  bar.stop();
  await writeFile(resultsPath, stringify(rows, { header: true, columns: RESULT_COLUMNS }));
  return { created: lines.length - failed, failed };
}
