import pg from 'pg';

/** Buffer parameters from this size on travel as they are; smaller ones are copied as usual. */
export const WHOLE_BUFFER_BYTES = 64 * 1024;

/** node-postgres' own conversion of a parameter (dates, arrays, objects); untyped in @types/pg. */
const prepareValue = (pg as unknown as { utils: { prepareValue(value: unknown): Buffer | string | null } }).utils.prepareValue;

const carriesWholeBuffer = (values: unknown): values is unknown[] =>
  Array.isArray(values) && values.some((value) => Buffer.isBuffer(value) && value.length >= WHOLE_BUFFER_BYTES);

/** The socket side of a pg Connection that the Bind is written to. */
interface Wire {
  stream: { writable: boolean; write(chunk: Buffer): boolean };
  parse(query: { text: string; types?: unknown[] }): void;
  describe(message: { type: 'P'; name: string }): void;
}

const int16 = (value: number) => {
  const buffer = Buffer.allocUnsafe(2);
  buffer.writeInt16BE(value);
  return buffer;
};
const int32 = (value: number) => {
  const buffer = Buffer.allocUnsafe(4);
  buffer.writeInt32BE(value);
  return buffer;
};

/**
 * The Bind message of the unnamed statement, as a list of buffers that the corked socket sends in one
 * writev: every large Buffer parameter is one of them as it is. node-postgres copies every parameter
 * into one new message, a second full copy of a file chunk in memory that only a major GC frees.
 */
function bindMessage(values: unknown[]): Buffer[] {
  const prepared = values.map(prepareValue);
  const parts: Buffer[] = [Buffer.from([0, 0]) /* unnamed portal and statement */, int16(prepared.length)];
  // As node-postgres does: Buffers in binary, everything else as text.
  parts.push(...prepared.map((value) => int16(Buffer.isBuffer(value) ? 1 : 0)), int16(prepared.length));
  for (const value of prepared) {
    if (value === null) parts.push(int32(-1));
    else {
      const bytes = Buffer.isBuffer(value) ? value : Buffer.from(value, 'utf8');
      parts.push(int32(bytes.length), bytes);
    }
  }
  parts.push(int16(1), int16(0)); // every result column as text
  const length = parts.reduce((sum, part) => sum + part.length, 4);
  const header = Buffer.allocUnsafe(5);
  header.write('B', 0, 'latin1');
  header.writeInt32BE(length, 1);
  return [header, ...parts];
}

/** An unnamed extended-protocol query whose Bind is written without copying its large Buffers. */
export class WholeBufferQuery extends pg.Query {
  /** Called by pg's Query.submit with the socket corked, like the prepare it replaces. */
  prepare(connection: Wire): void {
    const query = this as unknown as { text: string; types?: unknown[]; values: unknown[]; _getRows(connection: Wire, rows?: number): void };
    connection.parse({ text: query.text, types: query.types });
    if (!connection.stream.writable) return;
    for (const part of bindMessage(query.values)) connection.stream.write(part);
    connection.describe({ type: 'P', name: '' });
    query._getRows(connection, undefined);
  }
}

/**
 * The pool's Client (driverOptions `Client`): a query with text, no statement name and a Buffer
 * parameter of WHOLE_BUFFER_BYTES or more (file chunks) is sent with that Buffer as it is; every other
 * query goes through node-postgres unchanged.
 */
export class ByteParameterClient extends pg.Client {
  override query(...args: unknown[]): never {
    const [text, values, callback] = args;
    if (typeof text !== 'string' || !carriesWholeBuffer(values)) return (super.query as (...rest: unknown[]) => never)(...args);
    const query = new WholeBufferQuery(text, values) as unknown as pg.Query & { callback: (error: Error | null, result?: unknown) => void };
    // The two forms node-postgres offers: a callback (pg-pool's query), else a promise (kysely).
    if (typeof callback === 'function') {
      query.callback = callback as typeof query.callback;
      super.query(query);
      return undefined as never;
    }
    return new Promise((resolve, reject) => {
      query.callback = (error, result) => (error ? reject(error) : resolve(result));
      super.query(query);
    }) as never;
  }
}
