/**
 * A value that is already JSON text (a `jsonb` column read as text): the answer's writer (http/json-text.ts) copies the text
 * into the answer as it is, so a stored design config is neither parsed nor written again. Anything
 * else that serialises it (`JSON.stringify`) gets the parsed value through `toJSON`. PostgreSQL writes
 * `", "` and `": "` between members, so the answer differs from JSON.stringify's only in that spacing.
 */
export class JsonText {
  constructor(readonly text: string) {}

  toJSON(): unknown {
    return JSON.parse(this.text);
  }
}
