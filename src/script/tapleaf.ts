/** BIP341 commitment hashing shared by the interpreter and by taproot tree construction. */
import { ByteWriter, compareBytes, taggedHash } from '../primitives/index.js';

export function tapleafHash(leafVersion: number, script: Uint8Array): Uint8Array {
  return taggedHash('TapLeaf', new ByteWriter(script.length + 6).u8(leafVersion).varBytes(script).finish());
}

/** TapBranch of two child hashes, ordered lexicographically as BIP341 requires. */
export function tapbranchHash(a: Uint8Array, b: Uint8Array): Uint8Array {
  return compareBytes(a, b) < 0 ? taggedHash('TapBranch', a, b) : taggedHash('TapBranch', b, a);
}

/** TapTweak of an internal key and an optional merkle root (absent for key-path-only outputs). */
export function taptweakHash(internalKey: Uint8Array, merkleRoot?: Uint8Array): Uint8Array {
  return merkleRoot ? taggedHash('TapTweak', internalKey, merkleRoot) : taggedHash('TapTweak', internalKey);
}

/** Merkle root implied by a control block's path from `leafHash` upward. */
export function controlBlockMerkleRoot(control: Uint8Array, leafHash: Uint8Array): Uint8Array {
  let k = leafHash;
  for (let offset = 33; offset + 32 <= control.length; offset += 32) {
    k = tapbranchHash(k, control.subarray(offset, offset + 32));
  }
  return k;
}
