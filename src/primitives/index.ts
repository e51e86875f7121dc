/**
 * primitives: the wire formats every other layer shares. Bytes and hex, hashes,
 * CompactSize reading and writing, transactions (legacy and BIP144 serialization, txid,
 * wtxid, weight), block headers, blocks, merkle roots with the mutation check and the
 * BIP141 witness commitment, SipHash-2-4 and BIP158 Golomb-coded sets. Pure and
 * synchronous.
 */
export * from './bytes.js';
export * from './errors.js';
export * from './reader.js';
export * from './writer.js';
export * from './hashes.js';
export * from './transaction.js';
export * from './header.js';
export * from './merkle.js';
export * from './block.js';
export * from './muhash.js';
export * from './siphash.js';
export * from './gcs.js';
export * from './hash-entry-set.js';
export * from './ip-subnet.js';
export { buildMerkleBlock, extractMatches, MerkleBlockReadError, parseMerkleBlock, serializeMerkleBlock, type ExtractedMatches, type MerkleBlock, type PartialMerkleTree } from './merkle-block.js';
