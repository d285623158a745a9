import { readFileSync } from 'node:fs';
import { Ajv2019 } from 'ajv8/dist/2019.js';
import type { ErrorObject } from 'ajv8';

/**
 * 1EdTech's published CLR 2.0 JSON Schemas (test/fixtures/1edtech/README.md says where they come from)
 * as validators, with ajv 8 in its draft 2019-09 mode, as their `$schema` says. The only formats they
 * name are `date-time` and `date` (RFC 3339), checked here.
 */
const fixture = (name: string) => JSON.parse(readFileSync(new URL(`../fixtures/1edtech/${name}`, import.meta.url), 'utf8')) as object;

// inlineRefs: false compiles each $ref'd definition once and calls it, rather than inlining it at every
// use: the same checks and error paths, about half the compile time (over a second under Jest).
const ajv = new Ajv2019({ allErrors: true, strict: false, inlineRefs: false })
  .addFormat('date-time', /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/)
  .addFormat('date', /^\d{4}-\d{2}-\d{2}$/);
const clrCredential = ajv.compile(fixture('clr_v2p0_clrcredential_schema.json'));
const achievementCredential = ajv.compile(fixture('clr_v2p0_achievementcredential_schema.json'));

const lines = (errors: ErrorObject[] | null | undefined) => (errors ?? []).map((error) => `${error.instancePath || '/'} ${error.message}`);

/** What 1EdTech's ClrCredential schema finds wrong with `credential` (empty when it conforms). */
export function clrCredentialSchemaErrors(credential: unknown): string[] {
  return clrCredential(credential) ? [] : lines(clrCredential.errors);
}

/** What CLR 2.0's AchievementCredential schema finds wrong with `credential` (empty when it conforms). */
export function clrAchievementCredentialSchemaErrors(credential: unknown): string[] {
  return achievementCredential(credential) ? [] : lines(achievementCredential.errors);
}
