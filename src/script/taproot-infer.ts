/**
 * Core's InferTaprootTree: a script tree rebuilt from a taproot output's spend data (each
 * leaf script with its control blocks), as the descriptors Core infers for taproot outputs
 * print it. The leaves come out in the order the rebuilding finds them: the scripts are
 * taken in byte order, and the first script down a branch takes its left side, so the
 * printed tree need not be in the order the descriptor that made it was written.
 */
import { compareBytes, toHex } from '../primitives/index.js';
import { TAPROOT_CONTROL_BASE_SIZE, TAPROOT_CONTROL_MAX_SIZE, TAPROOT_CONTROL_NODE_SIZE, TAPROOT_LEAF_MASK } from './limits.js';
import { controlBlockMerkleRoot, tapbranchHash, tapleafHash } from './tapleaf.js';

export interface TaprootSpendLeaf {
  readonly script: Uint8Array;
  readonly leafVersion: number;
  readonly controlBlock: Uint8Array;
}

export interface InferredLeaf {
  readonly depth: number;
  readonly script: Uint8Array;
  readonly leafVersion: number;
}

interface TreeNode {
  hash: Uint8Array | null;
  sub: [TreeNode, TreeNode] | null;
  leaf: { script: Uint8Array; leafVersion: number } | null;
  explored: boolean;
  inner: boolean;
  done: boolean;
}

const newNode = (hash: Uint8Array | null = null): TreeNode => ({ hash, sub: null, leaf: null, explored: false, inner: false, done: false });
const sameHash = (a: Uint8Array | null, b: Uint8Array | null) => a !== null && b !== null && compareBytes(a, b) === 0;

/** The spend data in Core's map order: scripts by (bytes, leaf version), each script's control blocks shortest first. */
function spendDataOrder(leaves: readonly TaprootSpendLeaf[]): { script: Uint8Array; leafVersion: number; controls: Uint8Array[] }[] {
  const byKey = new Map<string, { script: Uint8Array; leafVersion: number; controls: Map<string, Uint8Array> }>();
  for (const leaf of leaves) {
    const key = `${toHex(leaf.script)}/${leaf.leafVersion}`;
    const entry = byKey.get(key) ?? { script: leaf.script, leafVersion: leaf.leafVersion, controls: new Map() };
    entry.controls.set(toHex(leaf.controlBlock), leaf.controlBlock);
    byKey.set(key, entry);
  }
  return [...byKey.values()]
    .sort((a, b) => compareBytes(a.script, b.script) || a.leafVersion - b.leafVersion)
    .map((entry) => ({
      script: entry.script,
      leafVersion: entry.leafVersion,
      controls: [...entry.controls.values()].sort((a, b) => a.length - b.length || compareBytes(a, b)),
    }));
}

/** The leaves of the tree with root `merkleRoot`, depth-first with their depths; null when the data does not make a whole tree. */
export function inferTaprootTree(merkleRoot: Uint8Array, leaves: readonly TaprootSpendLeaf[]): InferredLeaf[] | null {
  const root = newNode(merkleRoot);
  for (const { script, leafVersion, controls } of spendDataOrder(leaves)) {
    for (const control of controls) {
      if (leafVersion < 0 || leafVersion >= 0x100 || leafVersion & 1) continue;
      if (control.length < TAPROOT_CONTROL_BASE_SIZE || control.length > TAPROOT_CONTROL_MAX_SIZE) continue;
      if ((control.length - TAPROOT_CONTROL_BASE_SIZE) % TAPROOT_CONTROL_NODE_SIZE !== 0) continue;
      if ((control[0]! & TAPROOT_LEAF_MASK) !== leafVersion) continue;
      const leafHash = tapleafHash(leafVersion, script);
      if (!sameHash(controlBlockMerkleRoot(control, leafHash), merkleRoot)) continue;
      let node = root;
      const levels = (control.length - TAPROOT_CONTROL_BASE_SIZE) / TAPROOT_CONTROL_NODE_SIZE;
      for (let depth = 0; depth < levels; depth++) {
        if (node.explored && !node.inner) return null;
        const start = TAPROOT_CONTROL_BASE_SIZE + (levels - 1 - depth) * TAPROOT_CONTROL_NODE_SIZE;
        const partner = control.slice(start, start + TAPROOT_CONTROL_NODE_SIZE);
        if (node.sub) {
          let next: TreeNode | null = null;
          for (const i of [0, 1] as const) {
            const side = node.sub[i];
            const other = node.sub[1 - i]!;
            if (sameHash(side.hash, partner) || (side.hash === null && !sameHash(other.hash, partner))) {
              side.hash = partner;
              next = other;
              break;
            }
          }
          if (!next) return null;
          node = next;
        } else {
          node.explored = true;
          node.inner = true;
          node.sub = [newNode(), newNode(partner)];
          node = node.sub[0];
        }
      }
      if (node.sub) return null;
      node.explored = true;
      node.inner = false;
      node.leaf = { script, leafVersion };
      node.hash = leafHash;
    }
  }

  const out: InferredLeaf[] = [];
  const stack: TreeNode[] = [root];
  while (stack.length > 0) {
    const node = stack[stack.length - 1]!;
    if (!node.explored) return null;
    if (!node.inner) {
      out.push({ depth: stack.length - 1, script: node.leaf!.script, leafVersion: node.leaf!.leafVersion });
      node.done = true;
      stack.pop();
      continue;
    }
    const [left, right] = node.sub!;
    if (left.done && !right.done && !right.explored && right.hash !== null && sameHash(tapbranchHash(right.hash, right.hash), node.hash)) {
      // Two identical subtrees share their control blocks, so only the left one was built: walk it twice.
      left.done = false;
      right.done = true;
    } else if (left.done && right.done) {
      left.done = false;
      right.done = false;
      node.done = true;
      stack.pop();
    } else if (!left.done) {
      stack.push(left);
    } else {
      stack.push(right);
    }
  }
  return out;
}
