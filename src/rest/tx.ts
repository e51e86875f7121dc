/**
 * /rest/tx/ (mempool first, then -txindex; no separate "txindex off" error) and
 * /rest/getutxos (BIP64, Core v31's reading of URIs and bodies), from one snapshot.
 */
import type { SnapshotChainView } from '../chain/index.js';
import type { Reply, RestRequest } from '../http/index.js';
import { hashToHex, parseTransaction, type OutPoint } from '../primitives/index.js';
import { amountText, MempoolView, scriptPubKeyText, txToJson } from '../rpc/index.js';
import type { RestContext } from './context.js';
import { ALL_FORMATS, binReply, formatNotFound, hexReply, jsonTextReply, jsonValueReply, parseDataFormat, parseRestHash, restError, warmupError } from './format.js';
import {
  decodeUtxoBody,
  encodeUtxoResult,
  MAX_GETUTXOS_OUTPOINTS,
  parseHexLenient,
  parseUriOutpoints,
  uriParts,
  UtxoRequestError,
  type UtxoHit,
} from './getutxos.js';
import { bytesReply } from './blocks.js';

interface FoundTx {
  readonly bytes: Uint8Array;
  /** Display hex of the block, when found through the txindex. */
  readonly blockhash?: string;
}

/** Core's GetTransaction without a block: the mempool, then the txindex when it is on. */
function findTransaction(snapshot: SnapshotChainView, txid: Uint8Array): FoundTx | undefined {
  const pooled = snapshot.reader.mempoolEntry(txid);
  if (pooled) return { bytes: pooled.tx };
  const position = snapshot.txindex?.lookup(txid);
  if (!position) return undefined;
  return { bytes: snapshot.readTxBytes(position), blockhash: snapshot.readBlockHeaderAt(position).hashHex };
}

export function restTx(req: RestRequest, ctx: RestContext): Reply {
  if (req.warmup !== null) return warmupError(req.warmup);
  const { format, param: hashText } = parseDataFormat(req.rest);
  const txid = parseRestHash(hashText);
  if (!txid) return restError(400, `Invalid hash: ${hashText}`);
  return ctx.withSnapshot((snapshot) => {
    const found = findTransaction(snapshot, txid);
    if (!found) return restError(404, `${hashText} not found`);
    switch (format) {
      case 'bin':
      case 'hex':
        return bytesReply(format, found.bytes);
      case 'json': {
        const tx = parseTransaction(found.bytes);
        return jsonValueReply(txToJson(tx, { chain: snapshot.params.name, includeHex: true, ...(found.blockhash ? { blockhash: found.blockhash } : {}) }));
      }
      default:
        return formatNotFound(ALL_FORMATS);
    }
  });
}

function getUtxos(req: RestRequest, ctx: RestContext): Reply {
  const { format, param } = parseDataFormat(req.rest);
  const parts = uriParts(param);
  let body: Uint8Array = req.body;
  if (body.length === 0 && parts.length === 0) return restError(400, 'Error: empty request');
  let checkMempool = false;
  let outpoints: OutPoint[] = [];
  const inputParsed = parts.length > 0;
  if (inputParsed) {
    ({ checkMempool, outpoints } = parseUriOutpoints(parts));
    if (outpoints.length === 0) return restError(400, 'Error: empty request');
  }
  switch (format) {
    case 'hex':
    case 'bin':
      if (format === 'hex') body = parseHexLenient(Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('latin1'));
      if (body.length > 0) {
        if (inputParsed) return restError(400, 'Combination of URI scheme inputs and raw post data is not allowed');
        ({ checkMempool, outpoints } = decodeUtxoBody(body));
      }
      break;
    case 'json':
      if (!inputParsed) return restError(400, 'Error: empty request');
      break;
    default:
      return formatNotFound(ALL_FORMATS);
  }
  if (outpoints.length > MAX_GETUTXOS_OUTPOINTS) {
    return restError(400, `Error: max outpoints exceeded (max: ${MAX_GETUTXOS_OUTPOINTS}, tried: ${outpoints.length})`);
  }
  return ctx.withSnapshot((snapshot) => {
    // Core's CCoinsViewMemPool with mempool->isSpent: outputs a pool transaction spends are missing.
    const viewed = checkMempool ? MempoolView.of(snapshot) : undefined;
    // An empty pool spends and creates nothing: no per-outpoint lookups in it.
    const pool = viewed && viewed.entries.size > 0 ? viewed : undefined;
    const hits: boolean[] = [];
    const utxos: UtxoHit[] = [];
    for (const outpoint of outpoints) {
      let hit: UtxoHit | null | undefined;
      const txidHex = pool && hashToHex(outpoint.txid);
      if (!(pool && pool.spenderOf(txidHex!, outpoint.vout))) {
        // A pooled transaction's outputs come first (CCoinsViewMemPool), then the UTXO set.
        const pooled = pool?.outputOf(txidHex!, outpoint.vout);
        hit = pooled && { height: pooled.height, value: pooled.output.value, scriptPubKey: pooled.output.scriptPubKey };
        if (pooled === undefined) {
          const coin = snapshot.coin(outpoint);
          hit = coin && { height: coin.height, value: coin.output.value, scriptPubKey: coin.output.scriptPubKey };
        }
      }
      hits.push(!!hit);
      if (hit) utxos.push(hit);
    }
    const tip = snapshot.tip();
    const result = { chainHeight: tip.height, chaintipHash: tip.hash, hits, utxos };
    switch (format) {
      case 'bin':
        return binReply(encodeUtxoResult(result));
      case 'hex':
        return hexReply(encodeUtxoResult(result));
      default: {
        // Written as text, as writeJson would print the object: a request of many outpoints
        // spends most of its time here. Outpoints of one request often share a script (one
        // address's outputs): described once.
        const described = new Map<string, string>();
        const describe = (script: Uint8Array): string => {
          const key = Buffer.from(script.buffer, script.byteOffset, script.byteLength).toString('latin1');
          let text = described.get(key);
          if (text === undefined) described.set(key, (text = scriptPubKeyText(script, snapshot.params.name)));
          return text;
        };
        let bitmap = '';
        for (const hit of hits) bitmap += hit ? '1' : '0';
        const entries = utxos.map((u) => `{"height":${u.height},"value":${amountText(u.value)},"scriptPubKey":${describe(u.scriptPubKey)}}`);
        return jsonTextReply(`{"chainHeight":${result.chainHeight},"chaintipHash":"${tip.hashHex}","bitmap":"${bitmap}","utxos":[${entries.join(',')}]}`);
      }
    }
  });
}

/** /rest/getutxos[/checkmempool]/<txid>-<n>/....<ext>, or a POSTed binary/hex body. */
export function restGetUtxos(req: RestRequest, ctx: RestContext): Reply {
  if (req.warmup !== null) return warmupError(req.warmup);
  try {
    return getUtxos(req, ctx);
  } catch (err) {
    if (err instanceof UtxoRequestError) return restError(err.status, err.message);
    throw err;
  }
}
