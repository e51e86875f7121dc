/**
 * combinerawtransaction (Core's rpc/rawtransaction.cpp): the first variant with every
 * input's scriptSig and witness rebuilt from the signatures all variants carry, reading
 * the spent outputs from the call's snapshot (UTXO set and mempool, as Core's
 * CCoinsViewMemPool: a pooled transaction's outputs even when the pool spends them).
 */
import { MempoolView, spentOutput } from './mempool-view.js';
import { toHex, Transaction } from '../primitives/index.js';
import { dataFromTransaction, emptySignatureData, mergeSignatureData, produceSignature } from '../script/index.js';
import { view } from './blockchain-read.js';
import { RPC_DESERIALIZATION_ERROR, RPC_VERIFY_ERROR, RpcError } from './errors.js';
import { decodeTxHex } from './format/index.js';
import { defineRpcMethod } from './registry.js';
import { helpExampleCli, type RpcMethod } from './spec.js';
import { getStr } from './value-parse.js';

export function combineRawTransactionMethods(): RpcMethod[] {
  const combinerawtransaction = defineRpcMethod({
    name: 'combinerawtransaction',
    category: 'rawtransactions',
    description:
      'Combine multiple partially signed transactions into one transaction.\n' +
      'The combined transaction may be another partially signed transaction or a \n' +
      'fully signed transaction.',
    args: [
      {
        name: 'txs',
        type: 'arr',
        description: 'The hex strings of partially signed transactions',
        inner: [{ name: 'hexstring', type: 'hex', optional: true, description: 'A hex-encoded raw transaction' }],
      },
    ],
    results: [{ type: 'str', description: 'The hex-encoded raw transaction with signature(s)' }],
    examples: helpExampleCli('combinerawtransaction', `'["myhex1", "myhex2", "myhex3"]'`),
    readsSnapshot: true,
    handler: (args, ctx) => {
      const variants = (args.raw[0] as unknown[]).map((item, index) => {
        const tx = decodeTxHex(getStr(item as string), false, true);
        if (!tx) throw new RpcError(RPC_DESERIALIZATION_ERROR, `TX decode failed for tx ${index}. Make sure the tx has at least one input.`);
        return tx;
      });
      const merged = variants[0];
      if (!merged) throw new RpcError(RPC_DESERIALIZATION_ERROR, 'Missing transactions');
      const snapshot = view(ctx);
      const pool = MempoolView.of(snapshot);
      const spent = merged.inputs.map((input) => spentOutput(snapshot, pool, input.prevout));
      const inputs = merged.inputs.map((input, i) => {
        const coin = spent[i];
        if (!coin) throw new RpcError(RPC_VERIFY_ERROR, 'Input not found or already spent');
        let data = emptySignatureData();
        for (const variant of variants) if (variant.inputs.length > i) data = mergeSignatureData(data, dataFromTransaction(variant, i, coin));
        const { scriptSig, witness } = produceSignature(data, coin.scriptPubKey, { tx: merged, inputIndex: i, amount: coin.value });
        return { ...input, scriptSig, witness };
      });
      return toHex(new Transaction({ version: merged.version, inputs, outputs: merged.outputs, locktime: merged.locktime }).toBytes());
    },
  });
  return [combinerawtransaction];
}
