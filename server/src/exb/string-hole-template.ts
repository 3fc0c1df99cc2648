import { computeConfigKey, configKeyJson, configKeyOfJson } from './config-key.js';
import { escapePlistText, writePlist, type PlistDict } from './plist.js';

/** A settings file as it is written and hashed: the XML and its Config Key. */
export interface SerializedSettings {
  readonly xml: Buffer;
  readonly configKey: string;
}

/**
 * Dictionaries that differ only in one string value (each student's start URL), serialized once: the XML and the
 * Config Key JSON of a dictionary built with a placeholder value are cut where the value goes, and `fill` joins the
 * pieces around the real one. Both serializations write a string value as it is (the JSON unescaped, as the clients
 * hash it; the XML through the escaping of `writePlist`), so the result is byte for byte what serializing a dictionary
 * built with that value gives, without building, sorting and serializing one per file.
 *
 * There is no template (`null`) unless the placeholder occurs exactly once in each serialization and a probe value
 * filled in gives exactly what a full build with it gives; a dictionary that derived anything else from the value
 * would fail the probe, so the template can never write a file a full build would not.
 */
export interface StringHoleTemplate {
  fill(value: string): SerializedSettings;
}

export function serializeSettings(dict: PlistDict): SerializedSettings {
  return { xml: writePlist(dict), configKey: computeConfigKey(dict) };
}

export function stringHoleTemplate(
  build: (value: string) => PlistDict,
  placeholder: string,
  probe: string,
): StringHoleTemplate | null {
  const dict = build(placeholder);
  const xml = cutAt(writePlist(dict).toString('utf8'), escapePlistText(placeholder));
  const json = cutAt(configKeyJson(dict), placeholder);
  if (xml === null || json === null) return null;
  const template: StringHoleTemplate = {
    fill(value) {
      // Only a non-empty value is written as `<string>…</string>`; an empty one would be `<string/>`.
      if (value === '') throw new RangeError('the value of a string hole cannot be empty');
      return {
        xml: Buffer.from(`${xml.before}${escapePlistText(value)}${xml.after}`, 'utf8'),
        configKey: configKeyOfJson(`${json.before}${value}${json.after}`),
      };
    },
  };
  const expected = serializeSettings(build(probe));
  const filled = template.fill(probe);
  return filled.configKey === expected.configKey && filled.xml.equals(expected.xml) ? template : null;
}

function cutAt(text: string, marker: string): { before: string; after: string } | null {
  const at = text.indexOf(marker);
  if (marker === '' || at < 0 || text.indexOf(marker, at + 1) >= 0) return null;
  return { before: text.slice(0, at), after: text.slice(at + marker.length) };
}
