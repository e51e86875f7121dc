/**
 * submitpackage (Core v31's rpc/mempool.cpp): a transaction, or a child with some of its
 * unconfirmed parents (parents must not spend each other), submitted together — each
 * evaluated alone first, the rest on the package feerate — with Core's checks of the
 * arguments, its result (package_msg, tx-results by wtxid, replaced-transactions) and
 * errors. Coordinator-only: it changes the coordinator's pool; accepted transactions are
 * relayed.
 */
import { isChildWithParentsTree, packageStateText, type NodeMempool, type PackageTxResult } from '../mempool/index.js';
import type { Transaction } from '../primitives/index.js';
import { RPC_TRANSACTION_ERROR, RpcError } from './errors.js';
import { defineRpcMethod } from './registry.js';
import { helpExampleCli, helpExampleRpc, type RpcMethod, type RpcResultSpec } from './spec.js';
import { checkBurnAmount, checkPackageSize, decodeRawTransactions, MAXBURNAMOUNT_ARG, MAXFEERATE_ARG, parseFeeRate, stateText } from './submit-args.js';
import { amountFromValue } from './value-parse.js';
import { amountJson } from './values.js';

const TX_RESULT: RpcResultSpec = {
  type: 'obj',
  key: 'wtxid',
  description: 'transaction wtxid',
  inner: [
    { type: 'str_hex', key: 'txid', description: 'The transaction hash in hex' },
    {
      type: 'str_hex',
      key: 'other-wtxid',
      optional: true,
      description: 'The wtxid of a different transaction with the same txid but different witness found in the mempool. This means the submitted transaction was ignored.',
    },
    { type: 'num', key: 'vsize', optional: true, description: 'Sigops-adjusted virtual transaction size.' },
    {
      type: 'obj',
      key: 'fees',
      optional: true,
      description: 'Transaction fees',
      inner: [
        { type: 'str_amount', key: 'base', description: 'transaction fee in BTC' },
        {
          type: 'str_amount',
          key: 'effective-feerate',
          optional: true,
          description:
            'if the transaction was not already in the mempool, the effective feerate in BTC per KvB. For example, the package feerate and/or feerate with modified fees from prioritisetransaction.',
        },
        {
          type: 'arr',
          key: 'effective-includes',
          optional: true,
          description: 'if effective-feerate is provided, the wtxids of the transactions whose fees and vsizes are included in effective-feerate.',
          inner: [{ type: 'str_hex', description: 'transaction wtxid in hex' }],
        },
      ],
    },
    {
      type: 'str',
      key: 'error',
      optional: true,
      description: 'Error string if rejected from mempool, or "package-not-validated" when the package aborts before any per-tx processing.',
    },
  ],
};

/** A txid's bytes in Core's internal order, for ordering as Core's std::set<Txid> does. */
const internalOrder = (txidHex: string): string => txidHex.match(/../g)!.reverse().join('');

function txResultJson(tx: Transaction, result: PackageTxResult | undefined): Record<string, unknown> {
  const json: Record<string, unknown> = { txid: tx.txidHex };
  if (!result) {
    json.error = 'package-not-validated';
  } else if (result.kind === 'different-witness') {
    json['other-wtxid'] = result.otherWtxid;
  } else if (result.kind === 'invalid') {
    json.error = stateText(result.failure);
  } else if (result.kind === 'mempool-entry') {
    json.vsize = result.vsize;
    json.fees = { base: amountJson(result.fee) };
  } else {
    json.vsize = result.entry.vsize;
    // Only for a transaction this call added: for one already pooled, whether a package feerate let it in is unknown.
    json.fees = { base: amountJson(result.entry.fee), 'effective-feerate': amountJson(result.effectiveFeerate), 'effective-includes': result.effectiveIncludes };
  }
  return json;
}

export function submitPackageMethod(mempool: () => NodeMempool): RpcMethod {
  return defineRpcMethod({
    name: 'submitpackage',
    category: 'rawtransactions',
    description:
      'Submit a package of raw transactions (serialized, hex-encoded) to local node.\n' +
      'The package will be validated according to consensus and mempool policy rules. If any transaction passes, it will be accepted to mempool.\n' +
      'This RPC is experimental and the interface may be unstable. Refer to doc/policy/packages.md for documentation on package policies.\n' +
      'Warning: successful submission does not mean the transactions will propagate throughout the network.\n',
    args: [
      {
        name: 'package',
        type: 'arr',
        description:
          'An array of raw transactions.\n' +
          'The package must consist of a transaction with (some, all, or none of) its unconfirmed parents. A single transaction is permitted.\n' +
          'None of the parents may depend on each other. Parents that are already in mempool do not need to be present in the package.\n' +
          'The package must be topologically sorted, with the child being the last element in the array if there are multiple elements.',
        inner: [{ name: 'rawtx', type: 'hex', optional: true, description: '' }],
      },
      MAXFEERATE_ARG,
      MAXBURNAMOUNT_ARG,
    ],
    results: [
      {
        type: 'obj',
        description: '',
        inner: [
          { type: 'str', key: 'package_msg', description: 'The transaction package result message. "success" indicates all transactions were accepted into or are already in the mempool.' },
          { type: 'obj_dyn', key: 'tx-results', description: 'The transaction results keyed by wtxid. An entry is returned for every submitted wtxid.', inner: [TX_RESULT] },
          { type: 'arr', key: 'replaced-transactions', optional: true, description: 'List of txids of replaced transactions', inner: [{ type: 'str_hex', description: 'The transaction id' }] },
        ],
      },
    ],
    examples:
      helpExampleRpc('submitpackage', '["raw-parent-tx-1", "raw-parent-tx-2", "raw-child-tx"]') +
      helpExampleCli('submitpackage', '\'["raw-tx-without-unconfirmed-parents"]\''),
    handler: async (args) => {
      const raw = args.array('package');
      checkPackageSize(raw);
      const maxFeeRate = parseFeeRate(args.value('maxfeerate'));
      // A maxfeerate of 0 turns the check off.
      const clientMaxFeerate = maxFeeRate === 0n ? undefined : maxFeeRate;
      const maxBurn = amountFromValue(args.value('maxburnamount') ?? '0');
      const txs = decodeRawTransactions(raw, (tx) => checkBurnAmount(tx, maxBurn));
      if (txs.length > 1 && !isChildWithParentsTree(txs)) {
        throw new RpcError(RPC_TRANSACTION_ERROR, 'package topology disallowed. not child-with-parents or parents depend on each other.');
      }
      const outcome = await mempool().submitPackage(txs, clientMaxFeerate);
      const txResults: Record<string, unknown> = {};
      const replaced = new Set<string>();
      for (const tx of txs) {
        const result = outcome.results.get(tx.wtxidHex);
        txResults[tx.wtxidHex] = txResultJson(tx, result);
        if (result?.kind === 'valid') for (const r of result.replaced) replaced.add(r.txid);
      }
      return {
        package_msg: outcome.state ? packageStateText(outcome.state) : 'success',
        'tx-results': txResults,
        'replaced-transactions': [...replaced].sort((a, b) => (internalOrder(a) < internalOrder(b) ? -1 : 1)),
      };
    },
  });
}
