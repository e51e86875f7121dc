/**
 * Esplora's transaction queries: the JSON with prevouts and status, the status alone,
 * hex and raw bytes, the Electrum-style merkle proof and the BIP37 merkle block proof,
 * and who spent each output (the address index's spender table, then the pool).
 */
import { hashToHex, merkleBranch, type OutPoint } from '../primitives/index.js';
import { isUnspendable } from '../script/index.js';
import { txOutProof } from '../rpc/index.js';
import type { ChainReads, FoundTx } from './chain-reads.js';
import { notFound } from './errors.js';
import type { EsploraJson } from './json-text.js';
import { parseHashParam, parseNumberParam } from './blocks.js';
import { spendingValue, statusValue, txValue } from './values.js';

export function foundTxOf(reads: ChainReads, txidText: string): FoundTx {
  const found = reads.findTx(parseHashParam(txidText));
  if (!found) throw notFound('Transaction not found');
  return found;
}

export function txJson(reads: ChainReads, found: FoundTx): EsploraJson {
  return txValue(found.tx, reads.prevouts(found.tx), found.block, reads.snapshot.params.name);
}

/** GET /tx/:txid/status: never a 404 (an unknown transaction is unconfirmed). */
export function txStatus(reads: ChainReads, txidText: string): EsploraJson {
  return statusValue(reads.findTx(parseHashParam(txidText))?.block);
}

function confirmedTx(reads: ChainReads, txidText: string): FoundTx & { block: NonNullable<FoundTx['block']> } {
  const found = reads.findTx(parseHashParam(txidText));
  if (!found?.block) throw notFound('Transaction not found or is unconfirmed');
  return found as FoundTx & { block: NonNullable<FoundTx['block']> };
}

/** GET /tx/:txid/merkle-proof: {block_height, merkle (sibling hashes, leaf level up), pos}. */
export function merkleProof(reads: ChainReads, txidText: string): EsploraJson {
  const found = confirmedTx(reads, txidText);
  const txids = reads.snapshot.readBlock(found.block).transactions.map((tx) => tx.txid);
  const pos = txids.findIndex((txid) => hashToHex(txid) === found.tx.txidHex);
  return { block_height: found.block.height, merkle: merkleBranch(txids, pos).map(hashToHex), pos };
}

/** GET /tx/:txid/merkleblock-proof: gettxoutproof's hex for the one transaction. */
export function merkleBlockProof(reads: ChainReads, txidText: string): string {
  const found = confirmedTx(reads, txidText);
  return txOutProof(reads.snapshot, [found.tx.txidHex], found.block.hashHex);
}

function spendOfOutput(reads: ChainReads, found: FoundTx, vout: number): EsploraJson {
  const output = found.tx.outputs[vout];
  // electrs never looks up an OP_RETURN output's spender.
  if (!output || isUnspendable(output.scriptPubKey)) return spendingValue(undefined);
  const outpoint: OutPoint = { txid: found.tx.txid, vout };
  return spendingValue(reads.spendOf(outpoint, output.scriptPubKey));
}

/** GET /tx/:txid/outspend/:vout: an unknown transaction or output is unspent. */
export function outspend(reads: ChainReads, txidText: string, voutText: string): EsploraJson {
  const txid = parseHashParam(txidText);
  const vout = parseNumberParam(voutText);
  if (vout > 0xffffffff) return spendingValue(undefined);
  const found = reads.findTx(txid);
  return found ? spendOfOutput(reads, found, vout) : spendingValue(undefined);
}

export function outspends(reads: ChainReads, txidText: string): EsploraJson[] {
  const found = foundTxOf(reads, txidText);
  return found.tx.outputs.map((_, vout) => spendOfOutput(reads, found, vout));
}
