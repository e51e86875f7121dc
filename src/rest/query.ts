/**
 * Query parameters as Core reads them (GetQueryParameterFromUri over libevent 2.1): the
 * whole request target must pass evhttp_uri_parse's strict RFC 3986 check, else Core
 * throws "URI parsing failed, ..."; the query is then split on '&' into key=value pairs
 * (keys raw, values percent-decoded with '+' as space, cut at a decoded NUL), the first
 * occurrence of a key wins, and one malformed pair (no '=', empty key) drops them all.
 */

export const URI_PARSE_FAILED = 'URI parsing failed, it likely contained RFC 3986 invalid characters';

export class UriParseError extends Error {
  override readonly name = 'UriParseError';
  constructor() {
    super(URI_PARSE_FAILED);
  }
}

const SUBDELIMS = "!$&'()*+,;=";

function isUnreserved(c: string): boolean {
  return /^[A-Za-z0-9\-._~]$/.test(c);
}

function isHexDigit(c: string | undefined): boolean {
  return c !== undefined && /^[0-9A-Fa-f]$/.test(c);
}

type UriPart = 'path' | 'query' | 'fragment';

/** libevent's end_of_path: index of the first character the part may not hold. */
function endOfPart(text: string, start: number, part: UriPart): number {
  let i = start;
  while (i < text.length) {
    const c = text[i]!;
    if (isUnreserved(c) || SUBDELIMS.includes(c) || c === ':' || c === '@' || c === '/') i++;
    else if (c === '%' && isHexDigit(text[i + 1]) && isHexDigit(text[i + 2])) i += 3;
    else if (c === '?' && part !== 'path') i++;
    else return i;
  }
  return i;
}

/**
 * evhttp_uri_parse of an origin-form target ("/rest/..."): no scheme, no authority; a
 * path, an optional "?query" and "#fragment", nothing else. Returns the raw query
 * (undefined when there is no '?'), or throws UriParseError.
 */
export function parseTargetQuery(target: string): string | undefined {
  let i = endOfPart(target, 0, 'path');
  let query: string | undefined;
  if (target[i] === '?') {
    const start = i + 1;
    i = endOfPart(target, start, 'query');
    query = target.slice(start, i);
  }
  if (target[i] === '#') i = endOfPart(target, i + 1, 'fragment');
  if (i !== target.length) throw new UriParseError();
  // Without a scheme the first path segment may not hold ':'; a target starting with "//" would be an authority.
  if (target.startsWith('//')) throw new UriParseError();
  const path = target.slice(0, target.search(/[?#]|$/));
  const firstSegment = path.split('/')[0]!;
  if (firstSegment.includes(':')) throw new UriParseError();
  return query;
}

/** evhttp_decode_uri_internal with decode_plus: %XX when both digits are hex, '+' → space; bytes, not characters. */
function decodeValue(value: string): string {
  const bytes: number[] = [];
  for (let i = 0; i < value.length; i++) {
    const c = value[i]!;
    if (c === '+') bytes.push(0x20);
    else if (c === '%' && i + 2 < value.length && isHexDigit(value[i + 1]) && isHexDigit(value[i + 2])) {
      bytes.push(parseInt(value.slice(i + 1, i + 3), 16));
      i += 2;
    } else {
      bytes.push(...Buffer.from(c, 'utf8'));
    }
  }
  // The decoded value is a C string: it ends at the first NUL.
  const nul = bytes.indexOf(0);
  return Buffer.from(nul < 0 ? bytes : bytes.slice(0, nul)).toString('utf8');
}

/** evhttp_parse_query_str: the pairs in order, or none at all when one is malformed. */
export function parseQueryPairs(query: string): [string, string][] {
  const pairs: [string, string][] = [];
  if (query === '') return pairs;
  // strsep over '&' stops at the end of the string: a trailing '&' adds no empty pair.
  const parts = query.split('&');
  if (parts[parts.length - 1] === '') parts.pop();
  for (const part of parts) {
    const eq = part.indexOf('=');
    if (eq <= 0) return [];
    pairs.push([part.slice(0, eq), decodeValue(part.slice(eq + 1))]);
  }
  return pairs;
}

/**
 * Core's HTTPRequest::GetQueryParameter(key) for the request target: the first value of
 * `key`, undefined when absent; throws UriParseError when the target does not parse.
 */
export function queryParameter(target: string, key: string): string | undefined {
  const query = parseTargetQuery(target);
  if (query === undefined) return undefined;
  return parseQueryPairs(query).find(([k]) => k === key)?.[1];
}
