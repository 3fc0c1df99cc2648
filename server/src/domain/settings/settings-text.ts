import pg from 'pg';
import { ASSESSMENT_SETTING_FIELDS, COURSE_DEFAULTS_FIELDS, type SettingsRow } from './settings-codec.js';

/**
 * The settings of one assessment as one text column, for the student paths, which read them on every request: the
 * columns {@link SETTINGS_COLUMNS} selects, as a JSON object PostgreSQL writes. A row a process has decoded before is
 * then recognized by this text alone (`PolicyReader`), where 27 columns were parsed, typed and keyed per request; the
 * text is every selected value, so two rows the codec could decode differently never share it.
 *
 * {@link settingsRowFromText} gives the row {@link SETTINGS_COLUMNS} selects through the service's pool, value for value:
 * the JSON carries text, booleans, integers and `jsonb` as the driver parses them, `timestamptz` as its text output
 * (which the pool keeps as text), and `bytea` as its text output, parsed here by the driver's own parser.
 */

const TIMESTAMP_FIELDS = new Set(['updated_at']);
const BYTEA_FIELDS = new Set(['access_code_sealed', 'start_password_sealed', 'exit_password_sealed']);

function jsonPairs(alias: 's' | 'd', fields: readonly string[]): string[] {
  return fields.map((field) => {
    const column = `${alias}.${field}`;
    // In JSON a timestamptz would be written in ISO form; the pool hands it over in its text output.
    return `'${alias}_${field}', ${TIMESTAMP_FIELDS.has(field) ? `${column}::text` : column}`;
  });
}

/** Select beside {@link settingsJoin}; the column is `settings_text`. */
export const SETTINGS_TEXT_COLUMN = `json_build_object(${[
  ...jsonPairs('s', ASSESSMENT_SETTING_FIELDS),
  ...jsonPairs('d', COURSE_DEFAULTS_FIELDS),
].join(', ')})::text as settings_text`;

const parseBytea = pg.types.getTypeParser(pg.types.builtins.BYTEA, 'text') as (text: string) => Buffer;

export function settingsRowFromText(text: string): SettingsRow {
  const row = JSON.parse(text) as Record<string, unknown>;
  for (const alias of ['s', 'd']) {
    for (const field of BYTEA_FIELDS) {
      const value = row[`${alias}_${field}`];
      if (typeof value === 'string') row[`${alias}_${field}`] = parseBytea(value);
    }
  }
  return row as unknown as SettingsRow;
}
