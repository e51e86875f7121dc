/**
 * BIP158 filter endpoints (Core v31 rest.cpp): /rest/blockfilter/<type>/<hash> and
 * /rest/blockfilterheaders/<type>/<hash>?count=<N> (and the deprecated <type>/<N>/<hash>).
 * Only the "basic" type exists; without -blockfilterindex Core answers "Index is not
 * enabled". The index is read through the snapshot's BlockFilterIndexView (its own LMDB
 * environment, so its read is a second snapshot beside the chain's).
 */
import { BLOCK_FILTER_TYPE_ID, blockFilterTypeByName, FILTER_NOT_FOUND_MESSAGE, filterMissingReason } from '../chain/index.js';
import type { Reply, RestRequest } from '../http/index.js';
import { ByteWriter, hashToHex } from '../primitives/index.js';
import { activeHashes, parseCountedStart } from './blocks.js';
import type { RestContext } from './context.js';
import { ALL_FORMATS, binReply, formatNotFound, hexReply, jsonValueReply, parseDataFormat, parseRestHash, restError, splitPath, warmupError } from './format.js';

export function restBlockFilterHeaders(req: RestRequest, ctx: RestContext): Reply {
  if (req.warmup !== null) return warmupError(req.warmup);
  const { format, param } = parseDataFormat(req.rest);
  const parts = splitPath(param);
  const start = parseCountedStart(req, parts.slice(1), 'Invalid URI format. Expected /rest/blockfilterheaders/<filtertype>/<blockhash>.<ext>?count=<count>');
  if ('status' in start) return start;
  const { hash, count } = start;
  const type = parts[0]!;
  if (!blockFilterTypeByName(type)) return restError(400, `Unknown filtertype ${type}`);
  return ctx.withSnapshot((snapshot) => {
    const index = snapshot.blockfilter;
    if (!index) return restError(400, `Index is not enabled for filtertype ${type}`);
    const hashes = activeHashes(snapshot, hash, count);
    const ready = index.info().synced;
    const found = index.headers(hashes);
    const headers: Uint8Array[] = [];
    for (const header of found) {
      if (!header) return restError(404, FILTER_NOT_FOUND_MESSAGE[ready ? 'corruption' : 'indexing']);
      headers.push(header);
    }
    switch (format) {
      case 'bin':
      case 'hex': {
        const w = new ByteWriter(headers.length * 32);
        for (const h of headers) w.bytes(h);
        return format === 'bin' ? binReply(w.finish()) : hexReply(w.finish());
      }
      case 'json':
        return jsonValueReply(headers.map((h) => hashToHex(h)));
      default:
        return formatNotFound(ALL_FORMATS);
    }
  });
}

export function restBlockFilter(req: RestRequest, ctx: RestContext): Reply {
  if (req.warmup !== null) return warmupError(req.warmup);
  const { format, param } = parseDataFormat(req.rest);
  const parts = splitPath(param);
  if (parts.length !== 2) return restError(400, 'Invalid URI format. Expected /rest/blockfilter/<filtertype>/<blockhash>');
  const hashText = parts[1]!;
  const hash = parseRestHash(hashText);
  if (!hash) return restError(400, `Invalid hash: ${hashText}`);
  const type = blockFilterTypeByName(parts[0]!);
  if (!type) return restError(400, `Unknown filtertype ${parts[0]}`);
  return ctx.withSnapshot((snapshot) => {
    const index = snapshot.blockfilter;
    if (!index) return restError(400, `Index is not enabled for filtertype ${type}`);
    const entry = snapshot.entry(hash);
    if (!entry) return restError(404, `${hashText} not found`);
    const ready = index.info().synced;
    const filter = index.filter(hash);
    if (!filter) return restError(404, FILTER_NOT_FOUND_MESSAGE[filterMissingReason(entry.status, ready)]);
    switch (format) {
      case 'bin':
      case 'hex': {
        const body = new ByteWriter(filter.length + 40).u8(BLOCK_FILTER_TYPE_ID[type]).bytes(hash).varBytes(filter).finish();
        return format === 'bin' ? binReply(body) : hexReply(body);
      }
      case 'json':
        return jsonValueReply({ filter: Buffer.from(filter).toString('hex') });
      default:
        return formatNotFound(ALL_FORMATS);
    }
  });
}
