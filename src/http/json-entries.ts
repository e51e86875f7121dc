/**
 * The members of a request's named `params` in order, repeats included. JSON.parse keeps
 * only the last of a repeated key, but Core answers "Parameter x specified multiple
 * times"; this small strict parser reads the body again in the (rare) case that some
 * request passes params by name.
 */
import { JSON_ENTRIES, RawJsonNumber, type Json } from '../rpc/index.js';

type Entries = [string, Json][];
const ENTRIES = JSON_ENTRIES;
type WithEntries = { [ENTRIES]?: Entries };

class Parser {
  private i = 0;
  constructor(
    private readonly s: string,
    /** Numbers as their text (RawJsonNumber), the way UniValue keeps them. */
    private readonly numberText = false,
  ) {}

  parseDocument(): Json {
    const v = this.value();
    this.ws();
    if (this.i !== this.s.length) throw new SyntaxError('trailing data');
    return v;
  }

  private ws(): void {
    while (this.i < this.s.length && ' \t\n\r'.includes(this.s[this.i]!)) this.i++;
  }

  private value(): Json {
    this.ws();
    const c = this.s[this.i];
    if (c === '{') return this.object();
    if (c === '[') return this.array();
    if (c === '"') return this.string();
    // Scalars other than strings: find their extent and let JSON.parse judge them.
    const m = /^(?:true|false|null|-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?)/.exec(this.s.slice(this.i, this.i + 400));
    if (!m) throw new SyntaxError(`unexpected input at ${this.i}`);
    this.i += m[0].length;
    if (this.numberText && m[0] !== 'true' && m[0] !== 'false' && m[0] !== 'null') return new RawJsonNumber(m[0]) as unknown as Json;
    return JSON.parse(m[0]) as Json;
  }

  private string(): string {
    const start = this.i;
    this.i++;
    while (this.i < this.s.length) {
      const c = this.s[this.i];
      if (c === '\\') this.i += 2;
      else if (c === '"') {
        this.i++;
        return JSON.parse(this.s.slice(start, this.i)) as string;
      } else this.i++;
    }
    throw new SyntaxError('unterminated string');
  }

  private array(): Json[] {
    this.i++;
    const out: Json[] = [];
    this.ws();
    if (this.s[this.i] === ']') {
      this.i++;
      return out;
    }
    for (;;) {
      out.push(this.value());
      this.ws();
      const c = this.s[this.i++];
      if (c === ']') return out;
      if (c !== ',') throw new SyntaxError('expected , or ]');
    }
  }

  private object(): Json {
    this.i++;
    const entries: Entries = [];
    this.ws();
    if (this.s[this.i] === '}') this.i++;
    else {
      for (;;) {
        this.ws();
        if (this.s[this.i] !== '"') throw new SyntaxError('expected a key');
        const key = this.string();
        this.ws();
        if (this.s[this.i++] !== ':') throw new SyntaxError('expected :');
        entries.push([key, this.value()]);
        this.ws();
        const c = this.s[this.i++];
        if (c === '}') break;
        if (c !== ',') throw new SyntaxError('expected , or }');
      }
    }
    const obj = Object.fromEntries(entries) as Json & WithEntries;
    Object.defineProperty(obj, ENTRIES, { value: entries, enumerable: false });
    return obj;
  }
}

/** Parses JSON text; objects remember their members in order, repeats included. */
export function parseJsonKeepingEntries(text: string): Json {
  return new Parser(text).parseDocument();
}

/** What a request object's numbers look like as the body spells them. */
export interface RequestNumberSpellings {
  /** The `id` as written when it is a number: Core echoes number ids verbatim (1.50, -0, 1e3, 2^100). */
  readonly id?: RawJsonNumber;
  /**
   * Top-level params (positions of an array, names of an object) holding a number that is
   * integral but spelled with a fraction or an exponent (1.0, 1e3): Core's getInt reads
   * the text and answers "JSON integer out of range" for them, where a JS number cannot
   * tell 1.0 from 1.
   */
  readonly spelledParams: readonly (number | string)[];
}

/** The number spellings of each request object of the body (one, or each element of a batch), in one parse. */
export function requestNumberSpellings(text: string): (RequestNumberSpellings | undefined)[] {
  const doc = new Parser(text, true).parseDocument() as unknown;
  const spelled = (v: unknown) => v instanceof RawJsonNumber && /[.eE]/.test(v.text) && Number.isInteger(Number(v.text));
  const of = (request: unknown): RequestNumberSpellings | undefined => {
    if (request === null || typeof request !== 'object' || Array.isArray(request)) return undefined;
    const { id, params } = request as Record<string, unknown>;
    const spelledParams = Array.isArray(params)
      ? params.flatMap((v, i) => (spelled(v) ? [i] : []))
      : params !== null && typeof params === 'object'
        ? Object.entries(params).flatMap(([k, v]) => (spelled(v) ? [k] : []))
        : [];
    return { id: id instanceof RawJsonNumber ? id : undefined, spelledParams };
  };
  return Array.isArray(doc) ? doc.map(of) : [of(doc)];
}

/** Whether a body may hold a number spelled with a fraction or exponent (outside strings). */
export function mayHoldSpelledNumbers(text: string): boolean {
  return /[[,:]\s*-?\d+(?:\.\d*)?[.eE]/.test(text);
}

/** An object's members in order (repeats included when it came from parseJsonKeepingEntries). */
export function objectEntries(obj: object): Entries {
  return (obj as WithEntries)[ENTRIES] ?? (Object.entries(obj) as Entries);
}
