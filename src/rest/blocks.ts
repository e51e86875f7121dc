/**
 * Block endpoints (Core v31 rest.cpp): /rest/block/ (getblock 3 JSON),
 * /rest/block/notxdetails/ (getblock 1 JSON), /rest/blockpart/ (a byte range, read alone
 * from disk), /rest/headers/, /rest/blockhashbyheight/ and /rest/spenttxouts/. Each
 * request reads one snapshot; large byte bodies leave it as streams; block JSON is
 * getblock's text, kept per block by the RPC renderers.
 */
import { BlockDataUnavailable, type SnapshotChainView } from '../chain/index.js';
import { takeReplyBuffer, textPiecesReply, type Reply, type RestRequest } from '../http/index.js';
import { ByteWriter, hashToHex, HEADER_SIZE } from '../primitives/index.js';
import { blockJsonText, RpcError, scriptPubKeyJson, amountJson } from '../rpc/index.js';
import type { RestContext } from './context.js';
import {
  ALL_FORMATS,
  binReply,
  formatNotFound,
  hexReply,
  jsonValueReply,
  parseDataFormat,
  parseInt32,
  parseRestHash,
  parseUnsigned,
  restError,
  sanitizeUri,
  SIZE_MAX,
  splitPath,
  textReply,
  warmupError,
} from './format.js';
import { queryParameter, UriParseError } from './query.js';
import { activeHeadersJson } from './headers-json.js';
import { recentBlockBytes } from './recent-blocks.js';
import { bytesBody, STREAM_THRESHOLD_BYTES } from './stream.js';

/** Core's MAX_REST_HEADERS_RESULTS (headers and filter headers). */
export const MAX_REST_HEADERS_RESULTS = 2000;

/**
 * A block's bytes as bin (streamed when large: the block's own bytes, nothing copied) or
 * hex (encoded whole into a reused buffer: encoding it chunk by chunk as the socket took
 * it ran at half bitcoind's rate).
 */
export function bytesReply(format: 'bin' | 'hex', bytes: Uint8Array): Reply {
  if (format === 'hex') return hexReply(bytes);
  return bytes.length <= STREAM_THRESHOLD_BYTES ? binReply(bytes) : { status: 200, contentType: 'application/octet-stream', writer: bytesBody(bytes) };
}

interface BlockPart {
  readonly offset: bigint;
  readonly size: bigint;
}

/** Core's rest_block: hash, index entry, data present (pruned / not downloaded), the raw read, then the format. */
function restBlock(req: RestRequest, ctx: RestContext, verbosity: 1 | 3, part?: BlockPart): Reply {
  if (req.warmup !== null) return warmupError(req.warmup);
  const { format, param: hashText } = parseDataFormat(req.rest);
  const hash = parseRestHash(hashText);
  if (!hash) return restError(400, `Invalid hash: ${hashText}`);
  return ctx.withSnapshot((snapshot) => {
    const entry = snapshot.entry(hash);
    if (!entry) return restError(404, `${hashText} not found`);
    let bytes: Uint8Array;
    try {
      if (part) {
        const blockSize = BigInt(snapshot.readBlockSize(entry));
        if (part.size === 0n || part.offset + part.size > blockSize) {
          return restError(400, `Bad block part offset/size ${part.offset}/${part.size} for ${hashText}`);
        }
        bytes = snapshot.readBlockRange(entry, Number(part.offset), Number(part.size));
      } else {
        bytes = recentBlockBytes(snapshot, entry);
      }
    } catch (err) {
      if (err instanceof BlockDataUnavailable) {
        if (err.why === 'pruned') return restError(404, `${hashText} not available (pruned data)`);
        if (err.why === 'not-downloaded') return restError(404, `${hashText} not available (not fully downloaded)`);
      }
      return restError(500, `I/O error reading ${hashText}`);
    }
    switch (format) {
      case 'bin':
      case 'hex':
        return bytesReply(format, bytes);
      case 'json': {
        if (part) return restError(400, 'JSON output is not supported for this request type');
        try {
          // getblock's text, kept per block by the RPC renderers.
          const text = blockJsonText(snapshot, entry, verbosity, { read: () => bytes, kept: () => {} });
          return textPiecesReply(200, 'application/json', [text, '\n']);
        } catch (err) {
          if (err instanceof RpcError) return restError(500, err.message);
          throw err;
        }
      }
      default:
        return formatNotFound(ALL_FORMATS);
    }
  });
}

export function restBlockExtended(req: RestRequest, ctx: RestContext): Reply {
  return restBlock(req, ctx, 3);
}

export function restBlockNoTxDetails(req: RestRequest, ctx: RestContext): Reply {
  return restBlock(req, ctx, 1);
}

/** [v31] /rest/blockpart/<hash>.<bin|hex>?offset=<O>&size=<S>: offset and size are checked before warm-up. */
export function restBlockPart(req: RestRequest, ctx: RestContext): Reply {
  try {
    const offset = parseUnsigned(queryParameter(req.uri, 'offset') ?? '', SIZE_MAX);
    if (offset === undefined) return restError(400, 'Block part offset missing or invalid');
    const size = parseUnsigned(queryParameter(req.uri, 'size') ?? '', SIZE_MAX);
    if (size === undefined) return restError(400, 'Block part size missing or invalid');
    return restBlock(req, ctx, 1, { offset, size });
  } catch (err) {
    if (err instanceof UriParseError) return restError(400, err.message);
    throw err;
  }
}

/**
 * The active-chain run of headers and filter headers: the heights from `hash`'s upwards,
 * at most `count`; none when the block is unknown or off the active chain.
 */
function activeRun(snapshot: SnapshotChainView, hash: Uint8Array, count: number): { from: number; count: number; chainWork: bigint } {
  const start = snapshot.entry(hash);
  if (!start || !snapshot.isActive(start)) return { from: 0, count: 0, chainWork: 0n };
  return { from: start.height, count: Math.min(count, snapshot.height - start.height + 1), chainWork: start.chainWork };
}

/** The hashes of activeRun's heights. Only the active table is read past the first block. */
export function activeHashes(snapshot: SnapshotChainView, hash: Uint8Array, count: number): Uint8Array[] {
  const run = activeRun(snapshot, hash, count);
  const out: Uint8Array[] = [];
  for (let h = run.from; h < run.from + run.count; h++) out.push(snapshot.reader.activeHash(h)!);
  return out;
}

/** The count of headers/blockfilterheaders: ToIntegral<size_t> within 1..2000. */
function parseHeaderCount(raw: string): number | undefined {
  const count = parseUnsigned(raw, SIZE_MAX);
  return count !== undefined && count >= 1n && count <= BigInt(MAX_REST_HEADERS_RESULTS) ? Number(count) : undefined;
}

export interface CountedStart {
  readonly hash: Uint8Array;
  readonly count: number;
}

/**
 * headers and blockfilterheaders: `parts` (after the filter type) are `<hash>` with the
 * count from the query (default 5), or the deprecated `<count>/<hash>`; anything else is
 * `invalidUri`. Checked in Core's order: form, query, count, hash.
 */
export function parseCountedStart(req: RestRequest, parts: readonly string[], invalidUri: string): CountedStart | Reply {
  let rawCount: string;
  let hashText: string;
  if (parts.length === 2) {
    rawCount = parts[0]!;
    hashText = parts[1]!;
  } else if (parts.length === 1) {
    hashText = parts[0]!;
    try {
      rawCount = queryParameter(req.uri, 'count') ?? '5';
    } catch (err) {
      if (err instanceof UriParseError) return restError(400, err.message);
      throw err;
    }
  } else {
    return restError(400, invalidUri);
  }
  const count = parseHeaderCount(rawCount);
  if (count === undefined) return restError(400, `Header count is invalid or out of acceptable range (1-${MAX_REST_HEADERS_RESULTS}): ${rawCount}`);
  const hash = parseRestHash(hashText);
  if (!hash) return restError(400, `Invalid hash: ${hashText}`);
  return { hash, count };
}

/** /rest/headers/<hash>.<ext>?count=<N> and the deprecated /rest/headers/<N>/<hash>.<ext>. */
export function restHeaders(req: RestRequest, ctx: RestContext): Reply {
  if (req.warmup !== null) return warmupError(req.warmup);
  const { format, param } = parseDataFormat(req.rest);
  const start = parseCountedStart(req, splitPath(param), 'Invalid URI format. Expected /rest/headers/<hash>.<ext>?count=<count>');
  if ('status' in start) return start;
  const { hash, count } = start;
  return ctx.withSnapshot((snapshot) => {
    const run = activeRun(snapshot, hash, count);
    switch (format) {
      case 'bin':
      case 'hex': {
        // The headers table's runs as they are (a few reads for 2,000 headers), into a reused buffer.
        const out = takeReplyBuffer(run.count * HEADER_SIZE);
        if (run.count > 0) snapshot.reader.activeHeaders(run.from, run.count, out.bytes);
        if (format === 'bin') return { ...binReply(out.bytes), release: out.release };
        const reply = hexReply(out.bytes);
        out.release();
        return reply;
      }
      case 'json': {
        // 2,000 headers are 1.3 MB of JSON: streamed like a block, not copied into uWS's buffer.
        const json = activeHeadersJson(snapshot, run.from, run.count, run.chainWork);
        return json.length <= STREAM_THRESHOLD_BYTES ? { status: 200, contentType: 'application/json', body: json } : { status: 200, contentType: 'application/json', writer: bytesBody(json) };
      }
      default:
        return formatNotFound(ALL_FORMATS);
    }
  });
}

/** /rest/blockhashbyheight/<height>.<ext>: bin is internal order, hex and JSON the display order. */
export function restBlockHashByHeight(req: RestRequest, ctx: RestContext): Reply {
  if (req.warmup !== null) return warmupError(req.warmup);
  const { format, param } = parseDataFormat(req.rest);
  const height = parseInt32(param);
  if (height === undefined || height < 0) return restError(400, `Invalid height: ${sanitizeUri(param)}`);
  return ctx.withSnapshot((snapshot) => {
    if (height > snapshot.height) return restError(404, 'Block height out of range');
    const hash = snapshot.reader.activeHash(height)!;
    switch (format) {
      case 'bin':
        return binReply(Uint8Array.from(hash));
      case 'hex':
        return textReply(`${hashToHex(hash)}\n`);
      case 'json':
        return jsonValueReply({ blockhash: hashToHex(hash) });
      default:
        return formatNotFound(ALL_FORMATS);
    }
  });
}

/** /rest/spenttxouts/<hash>.<ext> (v30+): the outputs each transaction of the block spent, coinbase first (always none). */
export function restSpentTxOuts(req: RestRequest, ctx: RestContext): Reply {
  if (req.warmup !== null) return warmupError(req.warmup);
  const { format, param } = parseDataFormat(req.rest);
  const path = splitPath(param);
  if (path.length !== 1) return restError(400, 'Invalid URI format. Expected /rest/spenttxouts/<hash>.<ext>');
  const hashText = path[0]!;
  const hash = parseRestHash(hashText);
  if (!hash) return restError(400, `Invalid hash: ${hashText}`);
  return ctx.withSnapshot((snapshot) => {
    const entry = snapshot.entry(hash);
    if (!entry) return restError(404, `${hashText} not found`);
    // Core skips the read for the genesis block (it has no undo data): its answer is one empty entry.
    const undo = entry.height === 0 ? [] : snapshot.readUndo(entry);
    if (!undo) return restError(404, `${hashText} undo not available`);
    switch (format) {
      case 'bin':
      case 'hex': {
        const w = new ByteWriter();
        w.compactSize(undo.length + 1).compactSize(0);
        for (const spent of undo) {
          w.compactSize(spent.length);
          for (const coin of spent) w.i64(coin.output.value).varBytes(coin.output.scriptPubKey);
        }
        return bytesReply(format, w.finish());
      }
      case 'json':
        return jsonValueReply([
          [],
          ...undo.map((spent) => spent.map((coin) => ({ value: amountJson(coin.output.value), scriptPubKey: scriptPubKeyJson(coin.output.scriptPubKey, snapshot.params.name) }))),
        ]);
      default:
        return formatNotFound(ALL_FORMATS);
    }
  });
}
