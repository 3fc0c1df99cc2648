/**
 * Request parameters the way the LMS (a Rails application) reads them: `quiz[access_code]=x` nests,
 * `include[]=term` collects into an array, and JSON bodies are taken as they are.
 */
export type ParamValue = string | null | boolean | number | ParamValue[] | ParamObject;
export interface ParamObject {
  [key: string]: ParamValue;
}

export function parseNestedParams(entries: Iterable<[string, string]>): ParamObject {
  const root: ParamObject = {};
  for (const [rawKey, value] of entries) {
    const match = /^([^[\]]+)((?:\[[^[\]]*\])*)$/.exec(rawKey);
    if (!match) {
      root[rawKey] = value;
      continue;
    }
    const path = [match[1]!, ...[...match[2]!.matchAll(/\[([^[\]]*)\]/g)].map((m) => m[1]!)];
    assign(root, path, value);
  }
  return root;
}

function assign(target: ParamObject, path: string[], value: string): void {
  const [head, ...rest] = path;
  if (head === undefined) return;
  if (rest.length === 0) {
    target[head] = value;
    return;
  }
  if (rest[0] === '' && rest.length === 1) {
    const existing = target[head];
    target[head] = Array.isArray(existing) ? [...existing, value] : [value];
    return;
  }
  const existing = target[head];
  const child: ParamObject = existing && typeof existing === 'object' && !Array.isArray(existing) ? existing : {};
  target[head] = child;
  assign(child, rest, value);
}

/** Parses a body by its content type: JSON, form-urlencoded, or nothing. */
export function parseBody(contentType: string | null, text: string): ParamObject {
  if (!text) return {};
  const type = (contentType ?? '').toLowerCase();
  if (type.includes('json')) {
    try {
      const value: unknown = JSON.parse(text);
      return value && typeof value === 'object' && !Array.isArray(value) ? (value as ParamObject) : {};
    } catch {
      return {};
    }
  }
  if (type.includes('application/x-www-form-urlencoded') || type === '') {
    return parseNestedParams(new URLSearchParams(text));
  }
  return {};
}

/** A query parameter that may be given once or as `name[]`. */
export function listParam(query: ParamObject, name: string): string[] {
  const value = query[name];
  if (Array.isArray(value)) return value.filter((entry): entry is string => typeof entry === 'string');
  if (typeof value === 'string') return [value];
  return [];
}

export function stringParam(query: ParamObject, name: string): string | undefined {
  const value = query[name];
  return typeof value === 'string' ? value : undefined;
}

/** The LMS reads `true/false/1/0` (and JSON booleans) as booleans; anything else is "not given". */
export function booleanValue(value: unknown): boolean | undefined {
  if (value === true || value === 'true' || value === '1' || value === 1) return true;
  if (value === false || value === 'false' || value === '0' || value === 0) return false;
  return undefined;
}

/** Rails' `Hash#to_query`: keys sorted, arrays as `key%5B%5D=v`, nested objects as `a%5Bb%5D=v`. */
export function toRailsQuery(params: ParamObject, prefix?: string): string {
  const parts: string[] = [];
  for (const key of Object.keys(params).sort()) {
    const value = params[key];
    const name = prefix ? `${prefix}[${key}]` : key;
    if (Array.isArray(value)) {
      for (const entry of value) parts.push(`${encodeURIComponent(`${name}[]`)}=${encodeURIComponent(String(entry))}`);
    } else if (value && typeof value === 'object') {
      const nested = toRailsQuery(value, name);
      if (nested) parts.push(nested);
    } else {
      parts.push(`${encodeURIComponent(name)}=${encodeURIComponent(value === null ? '' : String(value))}`);
    }
  }
  return parts.join('&');
}
