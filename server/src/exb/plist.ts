/**
 * XML property lists as the exam browser reads them. Integers are JS numbers; the two types that would make Config Keys
 * platform-dependent (`real`, `date`) are wrapped so they can be read from foreign files but are never written.
 */

export type PlistValue = string | number | boolean | Uint8Array | PlistReal | PlistDate | PlistValue[] | PlistDict;
export type PlistDict = Map<string, PlistValue>;

export class PlistReal {
  constructor(readonly value: number) {}
}

/** Kept as the element's text: clients serialize dates differently, so nothing here interprets them. */
export class PlistDate {
  constructor(readonly text: string) {}
}

export class PlistError extends Error {
  override name = 'PlistError';
}

// Both clients detect a plain configuration by these first bytes, so nothing (no BOM, no whitespace) may precede them.
const XML_START = '<?xml';

const HEADER =
  '<?xml version="1.0" encoding="UTF-8"?>\n' +
  '<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">\n' +
  '<plist version="1.0">\n';

const INT32_MIN = -(2 ** 31);
const INT32_MAX = 2 ** 31 - 1;

// Characters XML 1.0 cannot carry at all, not even as character references.
const NON_XML_CHAR = /[^\t\n\r\x20-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/u;

export function writePlist(root: PlistDict): Buffer {
  const out: string[] = [HEADER];
  writeValue(root, 0, out);
  out.push('</plist>\n');
  return Buffer.from(out.join(''), 'utf8');
}

function writeValue(value: PlistValue, depth: number, out: string[]): void {
  const indent = '\t'.repeat(depth);
  if (typeof value === 'string') {
    out.push(value === '' ? `${indent}<string/>\n` : `${indent}<string>${escapePlistText(value)}</string>\n`);
  } else if (typeof value === 'number') {
    // The Windows client parses integers as Int32.
    if (!Number.isInteger(value) || value < INT32_MIN || value > INT32_MAX) {
      throw new PlistError(`integer out of range: ${value}`);
    }
    out.push(`${indent}<integer>${String(value)}</integer>\n`);
  } else if (typeof value === 'boolean') {
    out.push(`${indent}<${value ? 'true' : 'false'}/>\n`);
  } else if (value instanceof Uint8Array) {
    out.push(`${indent}<data>${Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('base64')}</data>\n`);
  } else if (value instanceof PlistReal || value instanceof PlistDate) {
    throw new PlistError('real and date values are not written: their Config Key serialization differs between clients');
  } else if (Array.isArray(value)) {
    if (value.length === 0) {
      out.push(`${indent}<array/>\n`);
      return;
    }
    out.push(`${indent}<array>\n`);
    for (const item of value) writeValue(item, depth + 1, out);
    out.push(`${indent}</array>\n`);
  } else {
    if (value.size === 0) {
      out.push(`${indent}<dict/>\n`);
      return;
    }
    out.push(`${indent}<dict>\n`);
    for (const [key, item] of value) {
      out.push(`${indent}\t<key>${escapePlistText(key)}</key>\n`);
      writeValue(item, depth + 1, out);
    }
    out.push(`${indent}</dict>\n`);
  }
}

/** How `writePlist` writes the text of a string or key. */
export function escapePlistText(text: string): string {
  if (NON_XML_CHAR.test(text)) throw new PlistError('string contains a character XML 1.0 cannot represent');
  // A literal CR would be turned into LF by every XML reader; the reference keeps it.
  return text.replace(/[&<>\r]/g, (c) => (c === '&' ? '&amp;' : c === '<' ? '&lt;' : c === '>' ? '&gt;' : '&#13;'));
}

/**
 * Reads the subset of XML that property lists use: prolog (declaration, DOCTYPE without internal subset, comments),
 * elements without attributes except on `<plist>`, character and predefined entity references, CDATA. The root must be
 * a dict. Like the exam browser, the document must start with `<?xml`.
 */
export function readPlist(input: Uint8Array | string): PlistDict {
  let text: string;
  if (typeof input === 'string') {
    text = input;
  } else {
    try {
      text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(input);
    } catch {
      throw new PlistError('property list is not valid UTF-8');
    }
  }
  if (!text.startsWith(XML_START)) throw new PlistError('property list must start with "<?xml"');
  return new PlistReader(text.replace(/\r\n?/g, '\n')).document();
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

class PlistReader {
  private pos = 0;

  constructor(private readonly src: string) {}

  document(): PlistDict {
    this.skipMisc(true);
    if (!this.src.startsWith('<plist', this.pos) || !/[\s>]/.test(this.src[this.pos + 6] ?? '')) {
      this.fail('expected <plist>');
    }
    const close = this.src.indexOf('>', this.pos);
    if (close < 0 || this.src[close - 1] === '/') this.fail('empty or unterminated <plist>');
    this.pos = close + 1;
    this.skipMisc(false);
    const root = this.value();
    if (!(root instanceof Map)) this.fail('root element must be a dict');
    this.skipMisc(false);
    this.closeTag('plist');
    this.skipMisc(true);
    if (this.pos !== this.src.length) this.fail('content after </plist>');
    return root;
  }

  private value(): PlistValue {
    const { name, empty } = this.openTag();
    switch (name) {
      case 'dict':
        return empty ? new Map() : this.dictBody();
      case 'array':
        return empty ? [] : this.arrayBody();
      case 'string':
        return empty ? '' : this.textBody('string');
      case 'data':
        return decodeBase64(empty ? '' : this.textBody('data'), (m) => this.fail(m));
      case 'integer':
        return this.integer(empty ? '' : this.textBody('integer'));
      case 'real':
        return this.real(empty ? '' : this.textBody('real'));
      case 'date':
        return new PlistDate((empty ? '' : this.textBody('date')).trim());
      case 'true':
      case 'false':
        if (!empty) {
          this.skipMisc(false);
          this.closeTag(name);
        }
        return name === 'true';
      default:
        return this.fail(`unexpected element <${name}>`);
    }
  }

  private dictBody(): PlistDict {
    const dict: PlistDict = new Map();
    for (;;) {
      this.skipMisc(false);
      if (this.src.startsWith('</', this.pos)) {
        this.closeTag('dict');
        return dict;
      }
      const { name, empty } = this.openTag();
      if (name !== 'key') this.fail(`expected <key>, found <${name}>`);
      const key = empty ? '' : this.textBody('key');
      if (dict.has(key)) this.fail(`duplicate key "${key}"`);
      this.skipMisc(false);
      dict.set(key, this.value());
    }
  }

  private arrayBody(): PlistValue[] {
    const items: PlistValue[] = [];
    for (;;) {
      this.skipMisc(false);
      if (this.src.startsWith('</', this.pos)) {
        this.closeTag('array');
        return items;
      }
      items.push(this.value());
    }
  }

  private integer(text: string): number {
    const trimmed = text.trim();
    if (!/^[+-]?\d+$/.test(trimmed)) this.fail(`invalid integer "${trimmed}"`);
    const value = Number(trimmed);
    if (!Number.isSafeInteger(value)) this.fail(`integer out of range "${trimmed}"`);
    return value;
  }

  private real(text: string): PlistReal {
    const trimmed = text.trim();
    const value = Number(trimmed);
    if (trimmed === '' || !Number.isFinite(value)) this.fail(`invalid real "${trimmed}"`);
    return new PlistReal(value);
  }

  /** Character data up to the matching end tag; markup other than comments and CDATA is an error. */
  private textBody(name: string): string {
    let text = '';
    for (;;) {
      const lt = this.src.indexOf('<', this.pos);
      if (lt < 0) this.fail(`unterminated <${name}>`);
      text += this.decodeEntities(this.src.slice(this.pos, lt));
      this.pos = lt;
      if (this.src.startsWith('<![CDATA[', lt)) {
        const end = this.src.indexOf(']]>', lt);
        if (end < 0) this.fail('unterminated CDATA section');
        text += this.src.slice(lt + 9, end);
        this.pos = end + 3;
      } else if (this.src.startsWith('<!--', lt)) {
        this.skipComment();
      } else {
        this.closeTag(name);
        return text;
      }
    }
  }

  private decodeEntities(raw: string): string {
    return raw.replace(/&([^;&\s]*);?/g, (match, ref: string) => {
      if (!match.endsWith(';')) this.fail(`unterminated reference "${match}"`);
      const named = ENTITIES[ref];
      if (named !== undefined) return named;
      const numeric = /^#x([0-9a-fA-F]+)$/.exec(ref) ?? /^#([0-9]+)$/.exec(ref);
      if (numeric?.[1] !== undefined) {
        const code = parseInt(numeric[1], ref.startsWith('#x') ? 16 : 10);
        const char = code <= 0x10ffff ? String.fromCodePoint(code) : '';
        if (char === '' || NON_XML_CHAR.test(char)) this.fail(`invalid character reference "${match}"`);
        return char;
      }
      return this.fail(`unknown entity "${match}"`);
    });
  }

  private openTag(): { name: string; empty: boolean } {
    const match = /^<([A-Za-z]+)\s*(\/?)>/.exec(this.src.slice(this.pos, this.pos + 64));
    if (!match?.[1]) this.fail('expected an element');
    this.pos += match[0].length;
    return { name: match[1], empty: match[2] === '/' };
  }

  private closeTag(name: string): void {
    const match = /^<\/([A-Za-z]+)\s*>/.exec(this.src.slice(this.pos, this.pos + 64));
    if (match?.[1] !== name) this.fail(`expected </${name}>`);
    this.pos += match[0].length;
  }

  /** Whitespace and comments; in the prolog and epilog also processing instructions and the DOCTYPE. */
  private skipMisc(outsideRoot: boolean): void {
    for (;;) {
      while (this.pos < this.src.length && /\s/.test(this.src[this.pos]!)) this.pos++;
      if (this.src.startsWith('<!--', this.pos)) {
        this.skipComment();
      } else if (outsideRoot && this.src.startsWith('<?', this.pos)) {
        const end = this.src.indexOf('?>', this.pos);
        if (end < 0) this.fail('unterminated processing instruction');
        this.pos = end + 2;
      } else if (outsideRoot && this.src.startsWith('<!DOCTYPE', this.pos)) {
        const end = this.src.indexOf('>', this.pos);
        if (end < 0) this.fail('unterminated DOCTYPE');
        if (this.src.slice(this.pos, end).includes('[')) this.fail('DOCTYPE internal subsets are not supported');
        this.pos = end + 1;
      } else {
        return;
      }
    }
  }

  private skipComment(): void {
    const end = this.src.indexOf('-->', this.pos + 4);
    if (end < 0) this.fail('unterminated comment');
    this.pos = end + 3;
  }

  private fail(message: string): never {
    throw new PlistError(`${message} at offset ${this.pos}`);
  }
}

function decodeBase64(text: string, fail: (message: string) => never): Uint8Array {
  const compact = text.replace(/\s+/g, '');
  if (compact.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(compact)) fail('invalid base64 in <data>');
  return new Uint8Array(Buffer.from(compact, 'base64'));
}
