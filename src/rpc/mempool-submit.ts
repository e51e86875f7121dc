/**
 * The mempool's write side (Core's rpc/mempool.cpp and node/transaction.cpp):
 * sendrawtransaction (BroadcastTransaction without peers) and testmempoolaccept, with
 * Core's arguments, results, error codes and texts. Coordinator-only: they change, or
 * check against, the coordinator's in-memory pool.
 */
import { feeForSize, MAX_PACKAGE_COUNT, packageStateText, type NodeMempool } from '../mempool/index.js';
import { RPC_DESERIALIZATION_ERROR, RPC_TRANSACTION_ERROR, RPC_TRANSACTION_REJECTED, RPC_VERIFY_ALREADY_IN_UTXO_SET, RpcError } from './errors.js';
import { decodeHexTx } from './mining.js';
import { defineRpcMethod } from './registry.js';
import { helpExampleCli, helpExampleRpc, type RpcMethod } from './spec.js';
import { amountFromValue } from './value-parse.js';
import { amountJson } from './values.js';
import { submitPackageMethod } from './package-submit.js';
import { checkBurnAmount, checkPackageSize, decodeRawTransactions, MAXBURNAMOUNT_ARG, MAXFEERATE_ARG, parseFeeRate, stateText } from './submit-args.js';

/** The help examples both calls start with: making and signing the raw transaction. */
const CREATE_AND_SIGN_EXAMPLES =
  '\nCreate a transaction\n' +
  helpExampleCli('createrawtransaction', '"[{\\"txid\\" : \\"mytxid\\",\\"vout\\":0}]" "{\\"myaddress\\":0.01}"') +
  'Sign the transaction, and get back the hex\n' +
  helpExampleCli('signrawtransactionwithwallet', '"myhex"');

export function mempoolSubmitMethods(mempool: () => NodeMempool): RpcMethod[] {
  const sendrawtransaction = defineRpcMethod({
    name: 'sendrawtransaction',
    category: 'rawtransactions',
    description:
      'Submit a raw transaction (serialized, hex-encoded) to the network.\n\n' +
      'If -privatebroadcast is disabled, then the transaction will be put into the\n' +
      'local mempool of the node and will be sent unconditionally to all currently\n' +
      'connected peers, so using sendrawtransaction for manual rebroadcast will degrade\n' +
      "privacy by leaking the transaction's origin, as nodes will normally not\n" +
      'rebroadcast non-wallet transactions already in their mempool.\n\n' +
      'If -privatebroadcast is enabled, then the transaction will be sent only via\n' +
      'dedicated, short-lived connections to Tor or I2P peers or IPv4/IPv6 peers\n' +
      "via the Tor network. This conceals the transaction's origin. The transaction\n" +
      'will only enter the local mempool when it is received back from the network.\n\n' +
      'A specific exception, RPC_TRANSACTION_ALREADY_IN_UTXO_SET, may throw if the transaction cannot be added to the mempool.\n\n' +
      'Related RPCs: createrawtransaction, signrawtransactionwithkey\n',
    args: [
      { name: 'hexstring', type: 'hex', description: 'The hex string of the raw transaction' },
      MAXFEERATE_ARG,
      MAXBURNAMOUNT_ARG,
    ],
    results: [{ type: 'str_hex', description: 'The transaction hash in hex' }],
    examples:
      CREATE_AND_SIGN_EXAMPLES +
      '\nSend the transaction (signed hex)\n' +
      helpExampleCli('sendrawtransaction', '"signedhex"') +
      '\nAs a JSON-RPC call\n' +
      helpExampleRpc('sendrawtransaction', '"signedhex"'),
    handler: async (args) => {
      const tx = decodeHexTx(args.string('hexstring'));
      if (!tx) throw new RpcError(RPC_DESERIALIZATION_ERROR, 'TX decode failed. Make sure the tx has at least one input.');
      checkBurnAmount(tx, amountFromValue(args.value('maxburnamount') ?? '0'));
      const maxFee = feeForSize(parseFeeRate(args.value('maxfeerate')), tx.vsize);
      const result = await mempool().broadcast(tx, maxFee);
      if ('alreadyInUtxoSet' in result) throw new RpcError(RPC_VERIFY_ALREADY_IN_UTXO_SET, 'Transaction outputs already in utxo set');
      if ('maxFeeExceeded' in result) throw new RpcError(RPC_TRANSACTION_ERROR, 'Fee exceeds maximum configured by user (e.g. -maxtxfee, maxfeerate)');
      if (!result.ok) throw new RpcError(result.missingInputs ? RPC_TRANSACTION_ERROR : RPC_TRANSACTION_REJECTED, stateText(result));
      return tx.txidHex;
    },
  });

  const testmempoolaccept = defineRpcMethod({
    name: 'testmempoolaccept',
    category: 'rawtransactions',
    description:
      '\nReturns result of mempool acceptance tests indicating if raw transaction(s) (serialized, hex-encoded) would be accepted by mempool.\n\n' +
      'If multiple transactions are passed in, parents must come before children and package policies apply: the transactions cannot conflict with any mempool transactions or each other.\n\n' +
      "If one transaction fails, other transactions may not be fully validated (the 'allowed' key will be blank).\n\n" +
      `The maximum number of transactions allowed is ${MAX_PACKAGE_COUNT}.\n\n` +
      'This checks if transactions violate the consensus or policy rules.\n\n' +
      'See sendrawtransaction call.\n',
    args: [
      {
        name: 'rawtxs',
        type: 'arr',
        description: 'An array of hex strings of raw transactions.',
        inner: [{ name: 'rawtx', type: 'hex', optional: true, description: '' }],
      },
      MAXFEERATE_ARG,
    ],
    results: [
      {
        type: 'arr',
        description:
          'The result of the mempool acceptance test for each raw transaction in the input array.\n' +
          'Returns results for each transaction in the same order they were passed in.\n' +
          "Transactions that cannot be fully validated due to failures in other transactions will not contain an 'allowed' result.\n",
        inner: [
          {
            type: 'obj',
            inner: [
              { type: 'str_hex', key: 'txid', description: 'The transaction hash in hex' },
              { type: 'str_hex', key: 'wtxid', description: 'The transaction witness hash in hex' },
              {
                type: 'str',
                key: 'package-error',
                optional: true,
                description: 'Package validation error, if any (only possible if rawtxs had more than 1 transaction).',
              },
              {
                type: 'bool',
                key: 'allowed',
                optional: true,
                description:
                  'Whether this tx would be accepted to the mempool and pass client-specified maxfeerate. If not present, the tx was not fully validated due to a failure in another tx in the list.',
              },
              {
                type: 'num',
                key: 'vsize',
                optional: true,
                description:
                  "Virtual transaction size as defined in BIP 141. This is different from actual serialized size for witness transactions as witness data is discounted (only present when 'allowed' is true)",
              },
              {
                type: 'obj',
                key: 'fees',
                optional: true,
                description: "Transaction fees (only present if 'allowed' is true)",
                inner: [
                  { type: 'str_amount', key: 'base', description: 'transaction fee in BTC' },
                  {
                    type: 'str_amount',
                    key: 'effective-feerate',
                    description:
                      'the effective feerate in BTC per KvB. May differ from the base feerate if, for example, there are modified fees from prioritisetransaction or a package feerate was used.',
                  },
                  {
                    type: 'arr',
                    key: 'effective-includes',
                    description: 'transactions whose fees and vsizes are included in effective-feerate.',
                    inner: [{ type: 'str_hex', description: 'transaction wtxid in hex' }],
                  },
                ],
              },
              { type: 'str', key: 'reject-reason', optional: true, description: "Rejection reason (only present when 'allowed' is false)" },
              {
                type: 'str',
                key: 'reject-details',
                optional: true,
                description: "Rejection details (only present when 'allowed' is false and rejection details exist)",
              },
            ],
          },
        ],
      },
    ],
    examples:
      CREATE_AND_SIGN_EXAMPLES +
      '\nTest acceptance of the transaction (signed hex)\n' +
      helpExampleCli('testmempoolaccept', '\'["signedhex"]\'') +
      '\nAs a JSON-RPC call\n' +
      helpExampleRpc('testmempoolaccept', '["signedhex"]'),
    handler: async (args) => {
      const raw = args.array('rawtxs');
      checkPackageSize(raw);
      const maxFeeRate = parseFeeRate(args.value('maxfeerate'));
      const txs = decodeRawTransactions(raw);
      const outcome = await mempool().testAcceptPackage(txs);
      let exitEarly = false;
      return txs.map((tx) => {
        const result: Record<string, unknown> = { txid: tx.txidHex, wtxid: tx.wtxidHex };
        if (outcome.state?.level === 'policy') result['package-error'] = packageStateText(outcome.state);
        const verdict = outcome.results.get(tx.wtxidHex);
        if (exitEarly || !verdict) return result;
        if (verdict.kind === 'valid') {
          const vsize = verdict.entry.vsize;
          const maxFee = feeForSize(maxFeeRate, vsize);
          if (maxFee > 0n && verdict.entry.fee > maxFee) {
            result.allowed = false;
            result['reject-reason'] = 'max-fee-exceeded';
            exitEarly = true;
          } else {
            result.allowed = true;
            result.vsize = vsize;
            result.fees = {
              base: amountJson(verdict.entry.fee),
              'effective-feerate': amountJson(verdict.effectiveFeerate),
              'effective-includes': verdict.effectiveIncludes,
            };
          }
        } else if (verdict.kind === 'invalid') {
          result.allowed = false;
          if (verdict.failure.missingInputs) {
            result['reject-reason'] = 'missing-inputs';
          } else {
            result['reject-reason'] = verdict.failure.reason;
            result['reject-details'] = stateText(verdict.failure);
          }
        }
        return result;
      });
    },
  });

  return [sendrawtransaction, testmempoolaccept, submitPackageMethod(mempool)];
}
