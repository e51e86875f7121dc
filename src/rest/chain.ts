/**
 * JSON-only endpoints whose bodies are RPC results (Core v31 rest.cpp):
 * /rest/chaininfo.json = getblockchaininfo, /rest/deploymentinfo[/<hash>].json =
 * getdeploymentinfo, /rest/mempool/info.json = getmempoolinfo and
 * /rest/mempool/contents.json = getrawmempool (verbose by default). The same builders
 * as the RPC methods, on one snapshot per request.
 */
import type { Reply, RestRequest } from '../http/index.js';
import { blockchainInfoJson, deploymentInfoResult, mempoolContentsJson, mempoolInfoJson } from '../rpc/index.js';
import type { RestContext } from './context.js';
import { formatNotFound, JSON_ONLY, jsonTextReply, jsonValueReply, parseDataFormat, parseRestHash, restError, warmupError } from './format.js';
import { queryParameter, UriParseError } from './query.js';

/** /rest/chaininfo.json (the prefix has no slash: "/rest/chaininfoXYZ.json" answers too). */
export function restChainInfo(req: RestRequest, ctx: RestContext): Reply {
  if (req.warmup !== null) return warmupError(req.warmup);
  const { format } = parseDataFormat(req.rest);
  if (format !== 'json') return formatNotFound(JSON_ONLY);
  return ctx.withSnapshot((snapshot) => jsonTextReply(blockchainInfoJson(snapshot)));
}

/** /rest/deploymentinfo.json and /rest/deploymentinfo/<hash>.json: the format is checked before the hash. */
export function restDeploymentInfo(req: RestRequest, ctx: RestContext): Reply {
  if (req.warmup !== null) return warmupError(req.warmup);
  const { format, param } = parseDataFormat(req.rest);
  if (format !== 'json') return formatNotFound(JSON_ONLY);
  let hash: Uint8Array | undefined;
  if (param !== '') {
    hash = parseRestHash(param);
    if (!hash) return restError(400, `Invalid hash: ${param}`);
  }
  return ctx.withSnapshot((snapshot) => {
    const entry = hash ? snapshot.entry(hash) : snapshot.tip();
    if (!entry) return restError(400, 'Block not found');
    return jsonValueReply(deploymentInfoResult(snapshot, entry));
  });
}

/** A query flag that must be exactly "true" or "false". */
function boolParam(uri: string, key: string, fallback: 'true' | 'false'): boolean | Reply {
  let raw: string;
  try {
    raw = queryParameter(uri, key) ?? fallback;
  } catch (err) {
    if (err instanceof UriParseError) return restError(400, err.message);
    throw err;
  }
  if (raw !== 'true' && raw !== 'false') return restError(400, `The "${key}" query parameter must be either "true" or "false".`);
  return raw === 'true';
}

/** /rest/mempool/<info|contents>.json; the mempool table is always there (empty until the mempool fills it). */
export function restMempool(req: RestRequest, ctx: RestContext): Reply {
  if (req.warmup !== null) return warmupError(req.warmup);
  const { format, param } = parseDataFormat(req.rest);
  if (param !== 'contents' && param !== 'info') return restError(400, 'Invalid URI format. Expected /rest/mempool/<info|contents>.json');
  if (format !== 'json') return formatNotFound(JSON_ONLY);
  if (param === 'info') return ctx.withSnapshot((snapshot) => jsonValueReply(mempoolInfoJson(snapshot)));
  const verbose = boolParam(req.uri, 'verbose', 'true');
  if (typeof verbose !== 'boolean') return verbose;
  const sequence = boolParam(req.uri, 'mempool_sequence', 'false');
  if (typeof sequence !== 'boolean') return sequence;
  if (verbose && sequence) return restError(400, 'Verbose results cannot contain mempool sequence values. (hint: set "verbose=false")');
  return ctx.withSnapshot((snapshot) => jsonValueReply(mempoolContentsJson(snapshot, verbose, sequence)));
}
