import type { Readable, Writable } from 'node:stream';
import { BodyChunks } from './body-chunks.js';

/**
 * Moves a multipart request body through busboy into the file parts' spools, wired by hand rather than
 * with pipes so that it knows when a body chunk is done with and can free it (see BodyChunks): the
 * parser holds a chunk until busboy has parsed it and every file stream has passed its slices on; a
 * spool holds each slice until it has stored it. Backpressure is the pipes' one: the request pauses
 * while the parser or a spool is full.
 */
export class MultipartFlow {
  private readonly chunks = new BodyChunks();
  /** Chunks busboy has parsed, still held until the file streams have handed their slices on. */
  private readonly parsed: Buffer[] = [];
  private readonly fileStreams = new Set<Readable>();
  private readonly awaited = new Set<Writable>();
  private stopped = false;

  constructor(
    private readonly request: Readable,
    private readonly parser: Writable,
  ) {}

  start(): void {
    this.request.on('data', this.parse);
    this.request.once('end', () => {
      if (!this.stopped) this.parser.end();
    });
  }

  /** Feeds one file part into its spool. */
  feed(part: Readable, spool: Writable): void {
    this.fileStreams.add(part);
    const gone = () => {
      this.fileStreams.delete(part);
      this.releaseParsed();
    };
    part.on('data', (slice: Buffer) => {
      // A spool that failed (disk full) fails its upload later; the part is read away meanwhile.
      if (!spool.writable) return this.releaseParsed();
      this.chunks.hold(slice);
      if (!spool.write(slice, () => this.chunks.release(slice))) this.pauseUntilDrained(spool);
      this.releaseParsed();
    });
    part.once('end', () => {
      spool.end();
      gone();
    });
    part.once('close', gone);
  }

  /** Stops parsing: the rest of the body is read away and nothing more is freed early. */
  stop(): void {
    this.stopped = true;
    this.request.off('data', this.parse);
    this.chunks.forget();
    this.awaited.clear();
    this.request.resume();
  }

  private readonly parse = (chunk: Buffer) => {
    this.chunks.own(chunk);
    const more = this.parser.write(chunk, () => {
      this.parsed.push(chunk);
      this.releaseParsed();
    });
    if (!more) this.pauseUntilDrained(this.parser);
  };

  /** A file stream still buffering slices (its first ones wait a tick) keeps every parsed chunk held. */
  private releaseParsed(): void {
    for (const part of this.fileStreams) if (part.readableLength > 0) return;
    for (const chunk of this.parsed.splice(0)) this.chunks.release(chunk);
  }

  /** Until `writable` drains, or ends: a writable that was ended while full emits no 'drain'. */
  private pauseUntilDrained(writable: Writable): void {
    if (this.awaited.has(writable)) return;
    this.awaited.add(writable);
    this.request.pause();
    const events = ['drain', 'finish', 'error', 'close'];
    const resume = () => {
      for (const name of events) writable.off(name, resume);
      if (!this.awaited.delete(writable) || this.stopped) return;
      if (this.awaited.size === 0) this.request.resume();
    };
    for (const name of events) writable.once(name, resume);
  }
}
