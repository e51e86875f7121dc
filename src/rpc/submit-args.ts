/**
 * What the transaction-submitting RPCs (sendrawtransaction, testmempoolaccept,
 * submitpackage) share: Core's maxfeerate and maxburnamount arguments and checks, and
 * the text of a validation state.
 */
import { COIN } from '../consensus/index.js';
import { MAX_PACKAGE_COUNT, type AcceptFailure } from '../mempool/index.js';
import type { Transaction } from '../primitives/index.js';
import { decodeScript, isUnspendable, MAX_OPCODE } from '../script/index.js';
import { RPC_DESERIALIZATION_ERROR, RPC_INVALID_PARAMETER, RPC_TRANSACTION_ERROR, RPC_TYPE_ERROR, RpcError } from './errors.js';
import { typeMismatchMessage, type Json } from './json.js';
import { decodeHexTx } from './mining.js';
import { amountFromValue } from './value-parse.js';

/** Core's DEFAULT_MAX_RAW_TX_FEE_RATE: 0.10 BTC/kvB. */
export const DEFAULT_MAX_RAW_TX_FEE_RATE = '0.10';

/** Core's ParseFeeRate: BTC/kvB to sat/kvB, below 1 BTC/kvB. */
export function parseFeeRate(value: Json | undefined): bigint {
  const rate = amountFromValue(value ?? DEFAULT_MAX_RAW_TX_FEE_RATE);
  if (rate >= COIN) throw new RpcError(RPC_INVALID_PARAMETER, 'Fee rates larger than or equal to 1BTC/kvB are not accepted');
  return rate;
}

/** Core's TxValidationState::ToString(): the reason, then ", <debug>" when there is one. */
export function stateText(failure: AcceptFailure): string {
  return failure.debug ? `${failure.reason}, ${failure.debug}` : failure.reason;
}

/** CScript::HasValidOps: every element parses and is a defined opcode. */
function hasValidOps(script: Uint8Array): boolean {
  const { ops, complete } = decodeScript(script);
  return complete && ops.every((op) => op.opcode <= MAX_OPCODE);
}

/** Core's burn sanity check: no provably unspendable output may carry more than `maxBurn` (Core's MAX_BURN_EXCEEDED, -25). */
export function checkBurnAmount(tx: Transaction, maxBurn: bigint): void {
  for (const out of tx.outputs) {
    if ((isUnspendable(out.scriptPubKey) || !hasValidOps(out.scriptPubKey)) && out.value > maxBurn) {
      throw new RpcError(RPC_TRANSACTION_ERROR, 'Unspendable output exceeds maximum configured by user (maxburnamount)');
    }
  }
}

export const MAXFEERATE_ARG = {
  name: 'maxfeerate',
  type: 'amount' as const,
  default: DEFAULT_MAX_RAW_TX_FEE_RATE,
  description: 'Reject transactions whose fee rate is higher than the specified value, expressed in BTC/kvB.\nFee rates larger than 1BTC/kvB are rejected.\nSet to 0 to accept any fee rate.',
};

export const MAXBURNAMOUNT_ARG = {
  name: 'maxburnamount',
  type: 'amount' as const,
  default: '0.00',
  description:
    "Reject transactions with provably unspendable outputs (e.g. 'datacarrier' outputs that use the OP_RETURN opcode) greater than the specified value, expressed in BTC.\n" +
    'If burning funds through unspendable outputs is desired, increase this value.\n' +
    'This check is based on heuristics and does not guarantee spendability of outputs.\n',
};

/** The raw transactions argument of testmempoolaccept and submitpackage: between 1 and 25 of them. */
export function checkPackageSize(raw: readonly Json[]): void {
  if (raw.length < 1 || raw.length > MAX_PACKAGE_COUNT) {
    throw new RpcError(RPC_INVALID_PARAMETER, `Array must contain between 1 and ${MAX_PACKAGE_COUNT} transactions.`);
  }
}

/** Each raw transaction decoded in turn (and passed to `each`), with Core's errors for a non-string or undecodable one. */
export function decodeRawTransactions(raw: readonly Json[], each: (tx: Transaction) => void = () => {}): Transaction[] {
  return raw.map((item) => {
    if (typeof item !== 'string') throw new RpcError(RPC_TYPE_ERROR, typeMismatchMessage(item, 'string'));
    const tx = decodeHexTx(item);
    if (!tx) throw new RpcError(RPC_DESERIALIZATION_ERROR, `TX decode failed: ${item} Make sure the tx has at least one input.`);
    each(tx);
    return tx;
  });
}
