/**
 * Previews already drawn, by what was drawn (template version, filled text, files, format): the
 * same request again is answered without a worker job. Bounded by bytes; the least recently used
 * preview goes first. A new template version or different data is a different key, so nothing
 * is ever stale.
 */
export class PreviewCache {
  private readonly entries = new Map<string, Buffer>();
  private bytes = 0;

  constructor(private readonly maxBytes = 32 * 1024 * 1024) {}

  get(key: string): Buffer | undefined {
    const hit = this.entries.get(key);
    if (hit) {
      this.entries.delete(key);
      this.entries.set(key, hit);
    }
    return hit;
  }

  set(key: string, value: Buffer): void {
    if (value.length > this.maxBytes / 4 || this.entries.has(key)) return;
    this.entries.set(key, value);
    this.bytes += value.length;
    for (const [oldest, bytes] of this.entries) {
      if (this.bytes <= this.maxBytes) break;
      this.entries.delete(oldest);
      this.bytes -= bytes.length;
    }
  }
}
