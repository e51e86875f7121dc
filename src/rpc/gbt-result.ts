/**
 * getblocktemplate's template object (BIP22/23/9/145), every key in the order Core
 * pushes it. Amounts are satoshis here (BIP22), not BTC; sigop costs and the size limit
 * are in pre-segwit units (divided by the witness scale factor) while segwit is not yet
 * active, and then `weightlimit` is left out.
 */
import { compactToTarget, MAX_BLOCK_SERIALIZED_SIZE, MAX_BLOCK_SIGOPS_COST, MAX_BLOCK_WEIGHT, uint256Hex, WITNESS_SCALE_FACTOR, type ChainParams } from '../consensus/index.js';
import type { GbtVersionBits } from '../mining/index.js';
import { hashToHex, serializeTransaction, toHex, witnessCommitmentIndex, type Block, type Transaction } from '../primitives/index.js';

/** A non-coinbase template transaction with what the assembler knew about it. */
export interface GbtTransaction {
  readonly tx: Transaction;
  readonly fee: bigint;
  /** Sigop cost in segwit units (Core's GetTransactionSigOpCost). */
  readonly sigopsCost: number;
}

export interface GbtTemplateFacts {
  readonly params: ChainParams;
  /** The template block: header time and bits already brought up to date, nonce 0. */
  readonly block: Block;
  readonly height: number;
  readonly transactions: readonly GbtTransaction[];
  readonly versionBits: GbtVersionBits;
  readonly segwitActive: boolean;
  readonly longpollid: string;
  readonly mintime: number;
}

/** Core's "%08x" of nBits. */
export function bitsHex(bits: number): string {
  return (bits >>> 0).toString(16).padStart(8, '0');
}

/**
 * The `transactions` entries: hex, ids, the 1-based indexes of earlier template
 * transactions it spends, fee, sigops, weight.
 */
export function gbtTransactionEntries(coinbase: Transaction, transactions: readonly GbtTransaction[], segwitActive: boolean): object[] {
  // Position in the block (coinbase = 0), which is the 1-based index in the list.
  const position = new Map<string, number>([[coinbase.txidHex, 0]]);
  return transactions.map(({ tx, fee, sigopsCost }, i) => {
    position.set(tx.txidHex, i + 1);
    const depends: number[] = [];
    for (const input of tx.inputs) {
      const at = position.get(hashToHex(input.prevout.txid));
      if (at !== undefined) depends.push(at);
    }
    return {
      data: toHex(serializeTransaction(tx, true)),
      txid: tx.txidHex,
      hash: tx.wtxidHex,
      depends,
      fee,
      sigops: segwitActive ? sigopsCost : Math.trunc(sigopsCost / WITNESS_SCALE_FACTOR),
      weight: tx.weight,
    };
  });
}

export function gbtTemplateResult(t: GbtTemplateFacts): Record<string, unknown> {
  const { block, params, segwitActive } = t;
  const header = block.header;
  const commitment = witnessCommitmentIndex(block);
  const scale = segwitActive ? 1 : WITNESS_SCALE_FACTOR;
  return {
    capabilities: ['proposal'],
    version: t.versionBits.version,
    rules: t.versionBits.rules,
    vbavailable: t.versionBits.vbavailable,
    vbrequired: 0,
    previousblockhash: hashToHex(header.prevHash),
    transactions: gbtTransactionEntries(block.transactions[0]!, t.transactions, segwitActive),
    coinbaseaux: {},
    coinbasevalue: block.transactions[0]!.outputs[0]!.value,
    longpollid: t.longpollid,
    target: uint256Hex(compactToTarget(header.bits)),
    mintime: t.mintime,
    mutable: ['time', 'transactions', 'prevblock'],
    noncerange: '00000000ffffffff',
    sigoplimit: MAX_BLOCK_SIGOPS_COST / scale,
    sizelimit: MAX_BLOCK_SERIALIZED_SIZE / scale,
    weightlimit: segwitActive ? MAX_BLOCK_WEIGHT : undefined,
    curtime: header.time,
    bits: bitsHex(header.bits),
    height: t.height,
    signet_challenge: params.signetBlocks && params.signetChallenge ? toHex(params.signetChallenge) : undefined,
    default_witness_commitment: commitment >= 0 ? toHex(block.transactions[0]!.outputs[commitment]!.scriptPubKey) : undefined,
  };
}
