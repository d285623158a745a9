import { readFileSync } from 'node:fs';
import Ajv from 'ajv';

/**
 * 1EdTech's JSON Schema of the OB 3.0 AchievementCredential (test/fixtures/1edtech/README.md says
 * where it comes from), as a validator. The file declares draft 2019-09 but uses only draft-07
 * keywords, so ajv 6 (draft-07) checks it once its `$schema` line is set aside.
 */
const { $schema: _draft, ...schema } = JSON.parse(
  readFileSync(new URL('../fixtures/1edtech/ob_v3p0_achievementcredential_schema.json', import.meta.url), 'utf8'),
) as Record<string, unknown>;

const validate = new Ajv({ allErrors: true, format: 'full', unknownFormats: 'ignore' }).compile(schema);

/** What the schema finds wrong with `credential`, as `path message` lines (empty when it conforms). */
export function achievementCredentialSchemaErrors(credential: unknown): string[] {
  return validate(credential) ? [] : (validate.errors ?? []).map((error) => `${error.dataPath || '/'} ${error.message}`);
}
