import { nativeMerkleRoot, sha256dOfPair } from './hashes.js';

export interface MerkleResult {
  root: Uint8Array;
  /**
   * True when some level has two identical adjacent hashes (CVE-2012-2459): such a tree
   * has the same root as a different transaction list, so the block must be rejected as
   * mutated rather than marked invalid.
   */
  mutated: boolean;
}

/** Core's ComputeMerkleRoot: pairs hashed with SHA-256d, an odd last node paired with itself. */
export function computeMerkleRoot(leaves: readonly Uint8Array[]): MerkleResult {
  if (leaves.length === 0) return { root: new Uint8Array(32), mutated: false };
  const native = leaves.length > 1 ? nativeMerkleRoot(leaves) : null;
  if (native) return native;
  let level = leaves.slice();
  let mutated = false;
  while (level.length > 1) {
    for (let i = 0; i + 1 < level.length; i += 2) {
      if (equal32(level[i]!, level[i + 1]!)) mutated = true;
    }
    if (level.length % 2 === 1) level.push(level[level.length - 1]!);
    const next: Uint8Array[] = [];
    for (let i = 0; i < level.length; i += 2) next.push(sha256dOfPair(level[i]!, level[i + 1]!));
    level = next;
  }
  return { root: level[0]!, mutated };
}

function equal32(a: Uint8Array, b: Uint8Array): boolean {
  for (let i = 0; i < 32; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** Merkle branch of leaf `index` (sibling hashes bottom-up), for merkle proofs. */
export function merkleBranch(leaves: readonly Uint8Array[], index: number): Uint8Array[] {
  const branch: Uint8Array[] = [];
  let level = leaves.slice();
  let position = index;
  while (level.length > 1) {
    if (level.length % 2 === 1) level.push(level[level.length - 1]!);
    branch.push(level[position ^ 1]!);
    const next: Uint8Array[] = [];
    for (let i = 0; i < level.length; i += 2) next.push(sha256dOfPair(level[i]!, level[i + 1]!));
    level = next;
    position >>= 1;
  }
  return branch;
}
