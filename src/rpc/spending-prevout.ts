/**
 * gettxspendingprevout (Core v31's rpc/mempool.cpp), answered from the call's snapshot:
 * the mempool first, then -txospenderindex for the outputs the pool does not spend, each
 * answer in the place it was asked. mempool_only defaults to true without the index; asking
 * the index when it is off is Core's -1 naming the first output the pool left unanswered.
 */
import { hashToHex, parseTransaction, toHex, type OutPoint } from '../primitives/index.js';
import { view } from './blockchain-read.js';
import { RPC_INVALID_PARAMETER, RPC_MISC_ERROR, RpcError } from './errors.js';
import { RawJsonNumber, type JsonObject } from './json.js';
import { MempoolView } from './mempool-view.js';
import { defineRpcMethod } from './registry.js';
import { helpExampleCli, helpExampleRpc, type RpcMethod } from './spec.js';
import { getBool, getInt, getObj, INT32_MAX, INT32_MIN, rpcTypeCheckObj } from './value-parse.js';
import { parseHash } from './values.js';

const EXAMPLE_OUTPUTS = '[{\\"txid\\":\\"a08e6907dbbd3d809776dbfc5d82e371b764ed838b5655e72f463568df1aadf0\\",\\"vout\\":3}]';
const EXAMPLE_NAMED = `outputs='[{"txid":"a08e6907dbbd3d809776dbfc5d82e371b764ed838b5655e72f463568df1aadf0","vout":3}]' return_spending_tx=true`;

interface RequestedOutpoint {
  readonly outpoint: OutPoint;
  /** The request's object: Core answers with a copy of it (key order, txid text as sent). */
  readonly request: JsonObject;
}

function parseOutpoints(outputs: readonly unknown[]): RequestedOutpoint[] {
  return outputs.map((element) => {
    const o = getObj(element as JsonObject);
    rpcTypeCheckObj(o, { txid: 'string', vout: 'number' }, false, true);
    const txid = parseHash(o['txid'] as string, 'txid');
    const vout = getInt(o['vout'], INT32_MIN, INT32_MAX);
    if (vout < 0) throw new RpcError(RPC_INVALID_PARAMETER, 'Invalid parameter, vout cannot be negative');
    return { outpoint: { txid, vout }, request: o };
  });
}

export function txSpendingPrevoutMethods(): RpcMethod[] {
  const gettxspendingprevout = defineRpcMethod({
    name: 'gettxspendingprevout',
    category: 'blockchain',
    description: 'Scans the mempool (and the txospenderindex, if available) to find transactions spending any of the given outputs',
    args: [
      {
        name: 'outputs',
        type: 'arr',
        description: 'The transaction outputs that we want to check, and within each, the txid (string) vout (numeric).',
        inner: [
          {
            name: '',
            type: 'obj',
            optional: true,
            description: '',
            inner: [
              { name: 'txid', type: 'hex', description: 'The transaction id' },
              { name: 'vout', type: 'num', description: 'The output number' },
            ],
          },
        ],
      },
      {
        name: 'options',
        type: 'obj_named',
        optional: true,
        description: '',
        inner: [
          {
            name: 'mempool_only',
            type: 'bool',
            defaultHint: 'true if txospenderindex unavailable, otherwise false',
            description: 'If false and mempool lacks a relevant spend, use txospenderindex (throws an exception if not available).',
          },
          { name: 'return_spending_tx', type: 'bool', default: false, description: 'If true, return the full spending tx.' },
        ],
      },
    ],
    results: [
      {
        type: 'arr',
        description: '',
        inner: [
          {
            type: 'obj',
            description: '',
            inner: [
              { type: 'str_hex', key: 'txid', description: 'the transaction id of the checked output' },
              { type: 'num', key: 'vout', description: 'the vout value of the checked output' },
              { type: 'str_hex', key: 'spendingtxid', optional: true, description: 'the transaction id of the mempool transaction spending this output (omitted if unspent)' },
              { type: 'str_hex', key: 'spendingtx', optional: true, description: 'the transaction spending this output (only if return_spending_tx is set, omitted if unspent)' },
              { type: 'str_hex', key: 'blockhash', optional: true, description: 'the hash of the spending block (omitted if unspent or the spending tx is not confirmed)' },
            ],
          },
        ],
      },
    ],
    examples:
      helpExampleCli('gettxspendingprevout', `"${EXAMPLE_OUTPUTS}"`) +
      helpExampleRpc('gettxspendingprevout', `"${EXAMPLE_OUTPUTS}"`) +
      helpExampleCli('-named gettxspendingprevout', EXAMPLE_NAMED),
    readsSnapshot: true,
    handler: (args, ctx) => {
      const outputs = args.raw[0] as unknown[];
      if (outputs.length === 0) throw new RpcError(RPC_INVALID_PARAMETER, 'Invalid parameter, outputs are missing');
      const options = (args.raw[1] ?? {}) as JsonObject;
      rpcTypeCheckObj(options, { mempool_only: 'bool', return_spending_tx: 'bool' }, true, true);
      const snapshot = view(ctx);
      const index = snapshot.txoSpender;
      const option = (key: string, fallback: boolean) => (Object.hasOwn(options, key) ? getBool(options[key]) : fallback);
      const mempoolOnly = option('mempool_only', index === undefined);
      const returnSpendingTx = option('return_spending_tx', false);
      const outpoints = parseOutpoints(outputs);
      const pool = MempoolView.of(snapshot);
      const answerOf = ({ outpoint, request }: RequestedOutpoint): Record<string, unknown> => {
        const answer: Record<string, unknown> = { ...request };
        if (Object.is(outpoint.vout, -0)) answer['vout'] = new RawJsonNumber('-0');
        return answer;
      };
      // The pool answers first; what it does not spend is looked up in the index, in its place.
      const result: Record<string, unknown>[] = [];
      const unresolved: number[] = [];
      for (const requested of outpoints) {
        const spender = pool.spender(requested.outpoint);
        if (!spender && !mempoolOnly) {
          if (!index) {
            const { txid, vout } = requested.outpoint;
            throw new RpcError(RPC_MISC_ERROR, `No spending tx for the outpoint ${hashToHex(txid)}:${vout} in mempool, and txospenderindex is unavailable.`);
          }
          unresolved.push(result.length);
        }
        const answer = answerOf(requested);
        if (spender) {
          answer['spendingtxid'] = spender.txid;
          if (returnSpendingTx) answer['spendingtx'] = toHex(spender.tx.toBytes());
        }
        result.push(answer);
      }
      for (const at of unresolved) {
        const { outpoint } = outpoints[at]!;
        const position = index!.spender(outpoint.txid, outpoint.vout);
        if (!position) continue;
        const bytes = snapshot.readTxBytes(position);
        const answer = result[at]!;
        answer['spendingtxid'] = parseTransaction(bytes).txidHex;
        answer['blockhash'] = snapshot.readBlockHeaderAt(position).hashHex;
        if (returnSpendingTx) answer['spendingtx'] = toHex(bytes);
      }
      return result;
    },
  });
  return [gettxspendingprevout];
}
