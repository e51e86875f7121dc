/**
 * getdescriptoractivity (Core's rpc/blockchain.cpp): every spend from and payment to the
 * scripts of the scan objects in the given active-chain blocks — taken in height order,
 * each block's transactions in order, a transaction's spends before its payments — then,
 * unless include_mempool is false, in the pool's transactions in Core's entryAll order
 * (mining order). Read-only: answered from one snapshot by whichever process gets it.
 */
import type { SnapshotChainView, ViewEntry } from '../chain/index.js';
import { hashToHex, toHex, type OutPoint, type Transaction } from '../primitives/index.js';
import { blockChecked, undoChecked } from './block-checked.js';
import { view, lookupViewBlock } from './blockchain-read.js';
import { RPC_INVALID_PARAMETER, RpcError } from './errors.js';
import { scriptPubKeyJson } from './format/index.js';
import { MempoolView } from './mempool-view.js';
import { defineRpcMethod } from './registry.js';
import { SCAN_OBJECT_FORMS, scanScriptSet } from './scan-args.js';
import { helpExampleCli, type RpcMethod, type RpcResultSpec } from './spec.js';
import { scriptPubKeyDoc } from './transaction-help.js';
import { getStr } from './value-parse.js';
import { amountJson } from './values.js';

/** The given blocks, each once, by height (Core's std::set ordered by nHeight). */
function blocksByHeight(snapshot: SnapshotChainView, hashes: readonly unknown[]): ViewEntry[] {
  const byHeight = new Map<number, ViewEntry>();
  for (const hash of hashes) {
    const entry = lookupViewBlock(snapshot, getStr(hash as never), 'blockhash');
    if (!snapshot.isActive(entry)) throw new RpcError(RPC_INVALID_PARAMETER, 'Block is not in main chain');
    if (!byHeight.has(entry.height)) byHeight.set(entry.height, entry);
  }
  return [...byHeight.values()].sort((a, b) => a.height - b.height);
}

/** The members an activity event starts with, spend or receive. */
function eventHeadDoc(type: string, outputWord: string, blockhash: string, height: string): RpcResultSpec[] {
  return [
    { type: 'str', key: 'type', description: `always '${type}'` },
    { type: 'str_amount', key: 'amount', description: `The total amount in BTC of the ${outputWord} output` },
    { type: 'str_hex', key: 'blockhash', optional: true, description: `${blockhash} (omitted if unconfirmed)` },
    { type: 'num', key: 'height', optional: true, description: `${height} (omitted if unconfirmed)` },
  ];
}

export function descriptorActivityMethods(): RpcMethod[] {
  const getdescriptoractivity = defineRpcMethod({
    name: 'getdescriptoractivity',
    category: 'blockchain',
    description:
      'Get spend and receive activity associated with a set of descriptors for a set of blocks. This command pairs well with the `relevant_blocks` output of `scanblocks()`.\n' +
      'This call may take several minutes. If you encounter timeouts, try specifying no RPC timeout (bitcoin-cli -rpcclienttimeout=0)',
    args: [
      {
        name: 'blockhashes',
        type: 'arr',
        description: "The list of blockhashes to examine for activity. Order doesn't matter. Must be along main chain or an error is thrown.\n",
        inner: [{ name: 'blockhash', type: 'hex', optional: true, description: 'A valid blockhash' }],
      },
      {
        name: 'scanobjects',
        type: 'arr',
        description: 'The list of descriptors (scan objects) to examine for activity. Every scan object is either a string descriptor or an object:',
        onelineDescription: '[scanobjects,...]',
        inner: SCAN_OBJECT_FORMS,
      },
      { name: 'include_mempool', type: 'bool', default: true, description: 'Whether to include unconfirmed activity' },
    ],
    results: [
      {
        type: 'obj',
        description: '',
        inner: [
          {
            type: 'arr',
            key: 'activity',
            description: 'events',
            inner: [
              {
                type: 'obj',
                description: '',
                inner: [
                  ...eventHeadDoc('spend', 'spent', 'The blockhash this spend appears in', 'Height of the spend'),
                  { type: 'str_hex', key: 'spend_txid', description: 'The txid of the spending transaction' },
                  { type: 'num', key: 'spend_vin', description: 'The input index of the spend' },
                  { type: 'str_hex', key: 'prevout_txid', description: 'The txid of the prevout' },
                  { type: 'num', key: 'prevout_vout', description: 'The vout of the prevout' },
                  { type: 'obj', key: 'prevout_spk', description: '', inner: scriptPubKeyDoc() },
                ],
              },
              {
                type: 'obj',
                description: '',
                inner: [
                  ...eventHeadDoc('receive', 'new', 'The block that this receive is in', 'The height of the receive'),
                  { type: 'str_hex', key: 'txid', description: 'The txid of the receiving transaction' },
                  { type: 'num', key: 'vout', description: 'The vout of the receiving output' },
                  { type: 'obj', key: 'output_spk', description: '', inner: scriptPubKeyDoc() },
                ],
              },
            ],
          },
        ],
      },
    ],
    examples: helpExampleCli(
      'getdescriptoractivity',
      '\'["000000000000000000001347062c12fded7c528943c8ce133987e2e2f5a840ee"]\' \'["addr(bc1qzl6nsgqzu89a66l50cvwapnkw5shh23zarqkw9)"]\'',
    ),
    readsSnapshot: true,
    handler: (args, ctx) => {
      const snapshot = view(ctx);
      const chain = snapshot.params.name;
      const blocks = blocksByHeight(snapshot, args.array('blockhashes'));
      const scripts = scanScriptSet(args.array('scanobjects'), chain);
      const activity: unknown[] = [];
      const place = (entry: ViewEntry | undefined) => (entry ? { blockhash: entry.hashHex, height: entry.height } : {});
      const spend = (script: Uint8Array, value: bigint, tx: Transaction, vin: number, prevout: OutPoint, entry: ViewEntry | undefined) => ({
        type: 'spend',
        amount: amountJson(value),
        ...place(entry),
        spend_txid: tx.txidHex,
        spend_vin: vin,
        prevout_txid: hashToHex(prevout.txid),
        prevout_vout: prevout.vout,
        prevout_spk: scriptPubKeyJson(script, chain),
      });
      const receives = (tx: Transaction, entry: ViewEntry | undefined) => {
        tx.outputs.forEach((out, vout) => {
          if (!scripts.has(toHex(out.scriptPubKey))) return;
          activity.push({ type: 'receive', amount: amountJson(out.value), ...place(entry), txid: tx.txidHex, vout, output_spk: scriptPubKeyJson(out.scriptPubKey, chain) });
        });
      };
      for (const entry of blocks) {
        const block = blockChecked(snapshot, entry);
        const undo = undoChecked(snapshot, entry);
        block.transactions.forEach((tx, i) => {
          if (i > 0) {
            tx.inputs.forEach((input, vin) => {
              const coin = undo[i - 1]![vin]!;
              if (scripts.has(toHex(coin.output.scriptPubKey))) activity.push(spend(coin.output.scriptPubKey, coin.output.value, tx, vin, input.prevout, entry));
            });
          }
          receives(tx, entry);
        });
      }
      if (args.value('include_mempool') !== false) {
        const pool = MempoolView.of(snapshot);
        for (const { tx } of pool.inMiningOrder()) {
          tx.inputs.forEach((input, vin) => {
            // A coin of the chain, else an output of a parent in the pool.
            const spent = snapshot.coin(input.prevout)?.output ?? pool.output(input.prevout)?.output;
            if (!spent) throw new Error('Invalid output index');
            if (scripts.has(toHex(spent.scriptPubKey))) activity.push(spend(spent.scriptPubKey, spent.value, tx, vin, input.prevout, undefined));
          });
          receives(tx, undefined);
        }
      }
      return { activity };
    },
  });

  return [getdescriptoractivity];
}
