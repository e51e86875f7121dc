/**
 * The Esplora HTTP API under /api/ (-esplora), routed as electrs's handle_request
 * routes: the path split on "/", matched on method and the first five segments, errors
 * as plain text with electrs's statuses and wording. Reads run on one chain snapshot (and
 * the address index's); only POST /tx and /fee-estimates ask the coordinator.
 */
import type { SnapshotChainView } from '../chain/index.js';
import type { Reply } from '../http/index.js';
import { decodeAddress, isValidAddress } from '../script/index.js';
import { scriptHashOf } from '../storage/index.js';
import { addressStats, chainHistory, fullHistory, mempoolHistory, unspentOutputs } from './address.js';
import { activeBlockOf, blockHeaderHex, blockJson, blockList, blockStatus, blockTxids, blockTxs, parseHashParam, parseNumberParam } from './blocks.js';
import { ChainReads } from './chain-reads.js';
import { badRequest, EsploraError, notFound } from './errors.js';
import { esploraJson, f64, type EsploraJson } from './json-text.js';
import { mempoolBacklog, mempoolRecent, mempoolTxids } from './mempool.js';
import { foundTxOf, merkleBlockProof, merkleProof, outspend, outspends, txJson, txStatus } from './transactions.js';

/** An RPC call's outcome as the front-end gets it: the result's JSON text, or Core's error. */
export type EsploraRpcOutcome = { readonly result: string } | { readonly error: { readonly code: number; readonly message: string } };

export interface EsploraContext {
  /** Runs `fn` on one consistent chain snapshot. */
  withSnapshot<T>(fn: (view: SnapshotChainView) => T): T;
  /** A JSON-RPC call answered by the node (sendrawtransaction, estimatesmartfee). */
  rpc(method: string, params: unknown[]): Promise<EsploraRpcOutcome>;
}

export interface EsploraRequest {
  readonly method: string;
  /** The path after "/api" (starting with "/"), without the query string. */
  readonly path: string;
  readonly body: Uint8Array;
}

/** electrs's fee-estimate targets (CONF_TARGETS). */
const CONF_TARGETS = [...Array.from({ length: 25 }, (_, i) => i + 1), 144, 504, 1008];

const text = (body: string): Reply => ({ status: 200, body, contentType: 'text/plain' });
const json = (value: EsploraJson): Reply => ({ status: 200, body: esploraJson(value), contentType: 'application/json' });
const errorReply = (status: number, message: string): Reply => ({ status, body: message, contentType: 'text/plain' });

/** The script hash of an /address/ or /scripthash/ segment (electrs's to_scripthash). */
function scriptHashParam(kind: string, param: string, chain: SnapshotChainView['params']['name']): Uint8Array {
  if (kind === 'scripthash') {
    // Esplora's script hash is the SHA-256 in digest order (not reversed as Electrum's).
    if (!/^[0-9a-fA-F]{64}$/.test(param)) throw badRequest('Invalid scripthash');
    return Uint8Array.from(Buffer.from(param, 'hex'));
  }
  const decoded = decodeAddress(param, chain);
  if (decoded.ok) return scriptHashOf(decoded.scriptPubKey);
  const otherNetwork = (['main', 'test', 'testnet4', 'signet', 'regtest'] as const).some((other) => other !== chain && isValidAddress(param, other));
  if (otherNetwork) throw badRequest('Address on invalid network');
  // rust-bitcoin's ParseError texts: a bech32-looking string failed as segwit, anything else as base58.
  throw badRequest(/^(bc|tb|bcrt)1/i.test(param) ? 'bech32 segwit decoding error' : param.length > 50 ? 'legacy address base58 string' : 'base58 error');
}

function route(req: EsploraRequest, ctx: EsploraContext): Reply | Promise<Reply> {
  const [p0, p1, p2, p3, p4] = req.path.split('/').slice(1);
  const method = req.method;
  if (method === 'POST' && p0 === 'tx' && p1 === undefined) return broadcast(req.body, ctx);
  if (method === 'GET' && p0 === 'fee-estimates' && p1 === undefined) return feeEstimates(ctx);
  if (method !== 'GET') throw notFound(`endpoint does not exist ${JSON.stringify(req.path)}`);
  return ctx.withSnapshot((snapshot) => {
    const reads = new ChainReads(snapshot);
    const chain = snapshot.params.name;
    if (p0 === 'blocks' && p1 === 'tip' && p2 === 'hash' && p3 === undefined) return text(snapshot.tip().hashHex);
    if (p0 === 'blocks' && p1 === 'tip' && p2 === 'height' && p3 === undefined) return text(String(snapshot.tip().height));
    if (p0 === 'blocks' && p2 === undefined) return json(blockList(reads, p1));
    if (p0 === 'block-height' && p1 !== undefined && p2 === undefined) {
      const entry = reads.activeBlock(parseNumberParam(p1));
      if (!entry) throw notFound('Block not found');
      return text(entry.hashHex);
    }
    if (p0 === 'block' && p1 !== undefined) {
      if (p2 === undefined) return json(blockJson(reads, activeBlockOf(reads, p1)));
      if (p2 === 'status' && p3 === undefined) return json(blockStatus(reads, p1));
      if (p2 === 'txids' && p3 === undefined) return json(blockTxids(reads, activeBlockOf(reads, p1)));
      if (p2 === 'header' && p3 === undefined) return text(blockHeaderHex(activeBlockOf(reads, p1)));
      if (p2 === 'raw' && p3 === undefined) {
        const bytes = snapshot.readBlockBytes(activeBlockOf(reads, p1));
        return { status: 200, body: bytes, contentType: 'application/octet-stream' };
      }
      if (p2 === 'txid' && p3 !== undefined && p4 === undefined) {
        parseHashParam(p1);
        const index = parseNumberParam(p3);
        const txids = blockTxids(reads, activeBlockOf(reads, p1));
        if (index >= txids.length) throw notFound('tx index out of range');
        return text(txids[index]!);
      }
      if (p2 === 'txs' && p4 === undefined) return json(blockTxs(reads, activeBlockOf(reads, p1), p3));
    }
    if ((p0 === 'address' || p0 === 'scripthash') && p1 !== undefined) {
      if (p2 === undefined) return json(addressStats(reads, scriptHashParam(p0, p1, chain), p0, p1));
      if (p2 === 'txs' && p3 === undefined) return json(fullHistory(reads, scriptHashParam(p0, p1, chain)));
      if (p2 === 'txs' && p3 === 'chain') {
        const scriptHash = scriptHashParam(p0, p1, chain);
        // An unparsable last-seen txid is ignored (the first page), as electrs does.
        const lastSeen = p4 !== undefined && /^[0-9a-fA-F]{64}$/.test(p4) ? parseHashParam(p4) : undefined;
        return json(chainHistory(reads, scriptHash, lastSeen));
      }
      if (p2 === 'txs' && p3 === 'mempool' && p4 === undefined) return json(mempoolHistory(reads, scriptHashParam(p0, p1, chain)));
      if (p2 === 'utxo' && p3 === undefined) return json(unspentOutputs(reads, scriptHashParam(p0, p1, chain)));
    }
    if (p0 === 'tx' && p1 !== undefined) {
      if (p2 === undefined) return json(txJson(reads, foundTxOf(reads, p1)));
      if (p2 === 'status' && p3 === undefined) return json(txStatus(reads, p1));
      if ((p2 === 'hex' || p2 === 'raw') && p3 === undefined) {
        const found = foundTxOf(reads, p1);
        return p2 === 'hex' ? text(Buffer.from(found.bytes).toString('hex')) : { status: 200, body: found.bytes.slice(), contentType: 'application/octet-stream' };
      }
      if (p2 === 'merkle-proof' && p3 === undefined) return json(merkleProof(reads, p1));
      if (p2 === 'merkleblock-proof' && p3 === undefined) return text(merkleBlockProof(reads, p1));
      if (p2 === 'outspend' && p3 !== undefined && p4 === undefined) return json(outspend(reads, p1, p3));
      if (p2 === 'outspends' && p3 === undefined) return json(outspends(reads, p1));
    }
    if (p0 === 'mempool' && p1 === undefined) return json(mempoolBacklog(snapshot));
    if (p0 === 'mempool' && p1 === 'txids' && p2 === undefined) return json(mempoolTxids(snapshot));
    if (p0 === 'mempool' && p1 === 'recent' && p2 === undefined) return json(mempoolRecent(reads));
    throw notFound(`endpoint does not exist ${JSON.stringify(req.path)}`);
  });
}

/** POST /tx: the body, as text, to sendrawtransaction; a refusal is 400 with electrs's wording. */
async function broadcast(body: Uint8Array, ctx: EsploraContext): Promise<Reply> {
  let hex: string;
  try {
    hex = new TextDecoder('utf-8', { fatal: true }).decode(body);
  } catch {
    throw badRequest('invalid utf-8 sequence');
  }
  const outcome = await ctx.rpc('sendrawtransaction', [hex]);
  if ('error' in outcome) throw new EsploraError(outcome.error.code === -28 ? 503 : 400, `sendrawtransaction RPC error ${outcome.error.code}: ${outcome.error.message}`);
  return text(JSON.parse(outcome.result) as string);
}

/** GET /fee-estimates: estimatesmartfee (economical) per target in sat/vB; targets without an estimate are left out. */
async function feeEstimates(ctx: EsploraContext): Promise<Reply> {
  const outcomes = await Promise.all(CONF_TARGETS.map((target) => ctx.rpc('estimatesmartfee', [target, 'economical'])));
  const out: Record<string, EsploraJson> = {};
  outcomes.forEach((outcome, i) => {
    if ('error' in outcome) return;
    const result = JSON.parse(outcome.result) as { feerate?: number; errors?: string[] };
    if (result.errors || result.feerate === undefined || result.feerate < 0) return;
    out[String(CONF_TARGETS[i])] = f64(result.feerate * 100_000);
  });
  return json(out);
}

/** Answers one /api/ request; errors become electrs's plain-text answers. */
export function handleEsplora(req: EsploraRequest, ctx: EsploraContext): Reply | Promise<Reply> {
  const failed = (err: unknown): Reply => {
    if (err instanceof EsploraError) return errorReply(err.status, err.message);
    return errorReply(503, (err as Error).message);
  };
  try {
    const reply = route(req, ctx);
    return reply instanceof Promise ? reply.catch(failed) : reply;
  } catch (err) {
    return failed(err);
  }
}
