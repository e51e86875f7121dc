/**
 * A UTXO under consideration for funding a transaction: Core's COutput (wallet/coinselection.h)
 * plus the mempool ancestry GroupOutputs asks the chain for (getTransactionAncestry), so that
 * selection stays a pure function of its inputs.
 */
import { compareBytes, toHex } from '../../primitives/index.js';
import type { OutPoint } from '../../primitives/index.js';
import { feeAtRate, type FeeRate } from './fee-rate.js';

export interface SelectableCoinInit {
  readonly outpoint: OutPoint;
  /** txout.nValue. */
  readonly value: bigint;
  /** txout.scriptPubKey: avoid-partial-spends groups coins by it. */
  readonly scriptPubKey: Uint8Array;
  /** Confirmations: > 0 in a block, 0 in the mempool (Core's depth; negative ones are never offered). */
  readonly depth: number;
  /**
   * Estimated vsize of spending this output once signed (CalculateMaximumSignedInputSize), or -1
   * when unknown; a coin of unknown size costs no fee and adds no weight, as in Core.
   */
  readonly inputBytes: number;
  /** Whether the transaction paying this output came from this wallet (CachedTxIsFromMe). */
  readonly fromMe: boolean;
  readonly solvable?: boolean;
  readonly safe?: boolean;
  /** CWalletTx::nTimeSmart of the paying transaction. */
  readonly time?: number;
  /** Unconfirmed ancestors of the paying transaction, itself included (getTransactionAncestry); 0 when confirmed. */
  readonly ancestors?: number;
  /**
   * The descendant count getTransactionAncestry reports for the paying transaction; since v31's
   * cluster mempool that is the size of its cluster. 0 when confirmed.
   */
  readonly descendants?: number;
  /** The effective fee rate: the coin's fee is feeRate.GetFee(inputBytes) (COutput's feerate constructor). */
  readonly feeRate?: FeeRate;
  /** An explicit fee instead (COutput's fees constructor); Core asserts it is 0 when inputBytes is unknown. */
  readonly fee?: bigint;
}

export class SelectableCoin {
  readonly outpoint: OutPoint;
  readonly value: bigint;
  readonly scriptPubKey: Uint8Array;
  readonly depth: number;
  readonly inputBytes: number;
  readonly fromMe: boolean;
  readonly solvable: boolean;
  readonly safe: boolean;
  readonly time: number;
  readonly ancestors: number;
  readonly descendants: number;
  /** The fee of spending this output at the long-term (consolidation) rate; OutputGroup.insert sets it. */
  longTermFee = 0n;
  /** The fee needed to bump unconfirmed ancestors to the target rate (applyBumpFee). */
  ancestorBumpFees = 0n;
  #fee: bigint | undefined;
  #effectiveValue: bigint | undefined;

  constructor(init: SelectableCoinInit) {
    this.outpoint = init.outpoint;
    this.value = init.value;
    this.scriptPubKey = init.scriptPubKey;
    this.depth = init.depth;
    this.inputBytes = init.inputBytes;
    this.fromMe = init.fromMe;
    this.solvable = init.solvable ?? true;
    this.safe = init.safe ?? true;
    this.time = init.time ?? 0;
    this.ancestors = init.ancestors ?? 0;
    this.descendants = init.descendants ?? 0;
    if (init.fee !== undefined) {
      // COutput's fees constructor: an unknown size pays nothing; a known one pays a non-negative fee.
      if (!((init.inputBytes < 0 && init.fee === 0n) || (init.inputBytes > 0 && init.fee >= 0n))) {
        throw new RangeError(`SelectableCoin: fee ${init.fee} does not fit input size ${init.inputBytes}`);
      }
      this.#fee = init.fee;
      this.#effectiveValue = init.value - init.fee;
    } else if (init.feeRate !== undefined) {
      // Base fee without considering unconfirmed ancestors.
      this.#fee = init.inputBytes < 0 ? 0n : feeAtRate(init.feeRate, init.inputBytes);
      this.#effectiveValue = init.value - this.#fee;
    }
  }

  /** COutput::ApplyBumpFee: the bump fee joins the coin's fee and lowers its effective value. */
  applyBumpFee(bumpFee: bigint): void {
    if (bumpFee < 0n) throw new RangeError('applyBumpFee: bump fee must not be negative');
    if (this.#fee === undefined) throw new Error('applyBumpFee: the coin has no fee (built without a fee rate)');
    this.ancestorBumpFees = bumpFee;
    this.#fee += bumpFee;
    this.#effectiveValue = this.value - this.#fee;
  }

  /** COutput::GetFee: spending it at the target rate, bump fees included. */
  get fee(): bigint {
    if (this.#fee === undefined) throw new Error('SelectableCoin: fee unknown (built without a fee rate)');
    return this.#fee;
  }

  /** COutput::GetEffectiveValue: value less fee. */
  get effectiveValue(): bigint {
    if (this.#effectiveValue === undefined) throw new Error('SelectableCoin: effective value unknown (built without a fee rate)');
    return this.#effectiveValue;
  }

  hasEffectiveValue(): boolean {
    return this.#effectiveValue !== undefined;
  }

  /** A fresh copy: GroupOutputs puts copies (make_shared<COutput>(output)) in groups, leaving the wallet's list untouched. */
  clone(): SelectableCoin {
    const copy = new SelectableCoin({
      outpoint: this.outpoint,
      value: this.value,
      scriptPubKey: this.scriptPubKey,
      depth: this.depth,
      inputBytes: this.inputBytes,
      fromMe: this.fromMe,
      solvable: this.solvable,
      safe: this.safe,
      time: this.time,
      ancestors: this.ancestors,
      descendants: this.descendants,
    });
    copy.#fee = this.#fee;
    copy.#effectiveValue = this.#effectiveValue;
    copy.longTermFee = this.longTermFee;
    copy.ancestorBumpFees = this.ancestorBumpFees;
    return copy;
  }
}

/** A map key for an outpoint. */
export function outpointKey(outpoint: OutPoint): string {
  return `${toHex(outpoint.txid)}:${outpoint.vout}`;
}

/** COutPoint's operator<: txid bytes as stored (internal order), then index. */
export function compareOutpoints(a: OutPoint, b: OutPoint): number {
  return compareBytes(a.txid, b.txid) || a.vout - b.vout;
}
