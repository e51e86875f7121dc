/**
 * rest: Bitcoin Core v31's REST interface, answered in the HTTP front-end processes from
 * one chain snapshot per request (LMDB read transaction + positional block-file reads),
 * never from the coordinator. Endpoints and their prefixes (routes.ts), format suffixes,
 * parameters and Core's plain-text errors (format.ts), libevent's query parsing
 * (query.ts), BIP64 getutxos (getutxos.ts), and large bodies streamed with backpressure
 * (stream.ts).
 */
export { registerRestEndpoints, REST_ENDPOINTS } from './routes.js';
export type { RestContext } from './context.js';
export { hexReply, parseDataFormat, parseInt32, parseRestHash, parseUnsigned, restError, sanitizeUri, type ParsedFormat, type RestFormat } from './format.js';
export { parseQueryPairs, parseTargetQuery, queryParameter, URI_PARSE_FAILED, UriParseError } from './query.js';
export {
  decodeUtxoBody,
  encodeUtxoResult,
  MAX_GETUTXOS_OUTPOINTS,
  MEMPOOL_HEIGHT,
  parseHexLenient,
  parseUriOutpoints,
  uriParts,
  utxoBitmap,
  UtxoRequestError,
  type UtxoResult,
} from './getutxos.js';
export { hexEncodeInto, useNativeHexEncoder } from './hex.js';
export { bytesBody, STREAM_THRESHOLD_BYTES } from './stream.js';
export { MAX_REST_HEADERS_RESULTS } from './blocks.js';
