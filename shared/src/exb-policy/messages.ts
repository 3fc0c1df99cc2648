/**
 * The messages of the policy rules. Each has a stable key into the `policy` catalogue namespace and the values it
 * names; its English text is the catalogue's English entry (`i18n/locales/en/policy.json`), so the API's English
 * `message` and the English page can never say different things. Pages in other languages translate the key.
 */
import english from '../i18n/locales/en/policy.json' with { type: 'json' };

type LeafKeys<Tree, Prefix extends string = ''> = {
  [Key in keyof Tree & string]: Tree[Key] extends string ? `${Prefix}${Key}` : LeafKeys<Tree[Key], `${Prefix}${Key}.`>;
}[keyof Tree & string];

/** A key of the `policy` namespace, such as `url.httpsOnly`. */
export type PolicyMessageKey = LeafKeys<typeof english>;

/** A value a message names: text, a number, or another message (a refusal of the launch address quotes its reason). */
export type PolicyMessageValue = string | number | PolicyMessageRef;

export interface PolicyMessageRef {
  readonly messageKey: PolicyMessageKey;
  readonly values?: Readonly<Record<string, PolicyMessageValue>>;
}

/** A message as the rules give it: the key and values to translate, and the English text for the API. */
export interface PolicyMessage extends PolicyMessageRef {
  readonly message: string;
}

/** Puts the text of a message together with `translate`, which gets the key and the values already as text. */
export function renderPolicyMessage(
  ref: PolicyMessageRef,
  translate: (key: PolicyMessageKey, values: Record<string, string | number>) => string,
): string {
  const values: Record<string, string | number> = {};
  for (const [name, value] of Object.entries(ref.values ?? {})) {
    values[name] = typeof value === 'object' ? renderPolicyMessage(value, translate) : value;
  }
  return translate(ref.messageKey, values);
}

function englishTemplate(key: PolicyMessageKey): string {
  let node: unknown = english;
  for (const part of key.split('.')) node = (node as Record<string, unknown>)[part];
  if (typeof node !== 'string') throw new RangeError(`no policy message ${key}`);
  return node;
}

/** The English text of a message, as the i18next syntax `{{name}}` of the catalogue reads. */
export function englishPolicyText(ref: PolicyMessageRef): string {
  return renderPolicyMessage(ref, (key, values) =>
    englishTemplate(key).replace(/\{\{\s*(\w+)\s*\}\}/g, (whole, name: string) => (name in values ? String(values[name]) : whole)),
  );
}

/** The message `messageKey` with its `values`, and its English text. */
export function policyMessage(messageKey: PolicyMessageKey, values?: Readonly<Record<string, PolicyMessageValue>>): PolicyMessage {
  const ref: PolicyMessageRef = values === undefined ? { messageKey } : { messageKey, values };
  return { ...ref, message: englishPolicyText(ref) };
}

/** A message as the value of another one: its key and values, without the English text. */
export function refOf(message: PolicyMessageRef): PolicyMessageRef {
  return message.values === undefined ? { messageKey: message.messageKey } : { messageKey: message.messageKey, values: message.values };
}

/** True for a key of the `policy` namespace, for reading one that arrived as data. */
export function isPolicyMessageKey(value: unknown): value is PolicyMessageKey {
  if (typeof value !== 'string' || value.length > 100) return false;
  try {
    englishTemplate(value as PolicyMessageKey);
    return true;
  } catch {
    return false;
  }
}

/**
 * Messages that zod schemas of the rules carry as plain text (a `.min(1, message)`), by that text: a zod issue with
 * one of them is read back as the message it came from.
 */
const SCHEMA_MESSAGES = new Map<string, PolicyMessage>();

/** A message a zod schema carries as its text; {@link schemaPolicyMessage} finds it again by that text. */
export function schemaMessage(messageKey: PolicyMessageKey): PolicyMessage {
  const message = policyMessage(messageKey);
  SCHEMA_MESSAGES.set(message.message, message);
  return message;
}

/** The message behind the text of a zod issue raised by a schema of the rules, if it is one. */
export function schemaPolicyMessage(text: string): PolicyMessage | undefined {
  return SCHEMA_MESSAGES.get(text);
}
