/** Proof-of-work grinding for regtest-difficulty blocks (Core's GenerateBlock loop). */
import { checkProofOfWork, type ChainParams } from '../consensus/index.js';
import { BlockHeader, type Block } from '../primitives/index.js';

/**
 * Increments the nonce until the header meets its target or `maxTries` runs out. Returns
 * the solved block, or null when tries ran out (or the nonce space did, as Core's loop).
 */
export function solveBlock(block: Block, params: ChainParams, maxTries: { remaining: number }): Block | null {
  const h = block.header;
  for (let nonce = h.nonce; nonce <= 0xffffffff && maxTries.remaining > 0; nonce++) {
    const header = new BlockHeader({ version: h.version, prevHash: h.prevHash, merkleRoot: h.merkleRoot, time: h.time, bits: h.bits, nonce });
    if (checkProofOfWork(header.hash, header.bits, params)) return { header, transactions: block.transactions };
    maxTries.remaining--;
  }
  return null;
}
