/**
 * BIP341 output construction for wallets and tests: leaf and branch hashes, the merkle
 * root of a script tree, the TapTweak, the tweaked output key and each leaf's control
 * block. Verification of spends lives in the interpreter; this builds what it checks.
 */
import { nativeKeyTweaks } from './key-tweaks.js';
import { Point, etc } from '@noble/secp256k1';
import { concatBytes } from '../primitives/index.js';
import { TAPROOT_CONTROL_MAX_NODE_COUNT, TAPROOT_LEAF_MASK } from './limits.js';
import { OP } from './opcodes.js';
import { tapbranchHash, tapleafHash, taptweakHash } from './tapleaf.js';

export class TaprootError extends Error {
  override readonly name = 'TaprootError';
}

export interface TapLeaf {
  readonly script: Uint8Array;
  /** Even value 0..254; tapscript is 0xc0. */
  readonly leafVersion: number;
}

/** A script tree as BIP341 writes it: a leaf, or a pair of subtrees. */
export type TapTree = TapLeaf | readonly [TapTree, TapTree];

export interface TapLeafInfo {
  readonly leaf: TapLeaf;
  readonly leafHash: Uint8Array;
  /** Sibling hashes from the leaf's level up to just below the root, as the control block lists them. */
  readonly path: readonly Uint8Array[];
}

export interface TapTreeInfo {
  readonly merkleRoot: Uint8Array;
  /** Leaves in depth-first, left-to-right order. */
  readonly leaves: readonly TapLeafInfo[];
}

function isLeaf(tree: TapTree): tree is TapLeaf {
  return !Array.isArray(tree);
}

function buildSubtree(tree: TapTree, depth: number): { hash: Uint8Array; leaves: { leaf: TapLeaf; leafHash: Uint8Array; path: Uint8Array[] }[] } {
  if (isLeaf(tree)) {
    const { leafVersion } = tree;
    // The low bit of the control block's first byte carries the output key's parity.
    if (!Number.isInteger(leafVersion) || (leafVersion & TAPROOT_LEAF_MASK) !== leafVersion) {
      throw new TaprootError(`invalid leaf version ${leafVersion}`);
    }
    const leafHash = tapleafHash(leafVersion, tree.script);
    return { hash: leafHash, leaves: [{ leaf: tree, leafHash, path: [] }] };
  }
  // A leaf below this depth would need a control block longer than BIP341 allows.
  if (depth >= TAPROOT_CONTROL_MAX_NODE_COUNT) throw new TaprootError('script tree deeper than 128 levels');
  const [leftTree, rightTree] = tree;
  const left = buildSubtree(leftTree, depth + 1);
  const right = buildSubtree(rightTree, depth + 1);
  for (const info of left.leaves) info.path.push(right.hash);
  for (const info of right.leaves) info.path.push(left.hash);
  return { hash: tapbranchHash(left.hash, right.hash), leaves: [...left.leaves, ...right.leaves] };
}

/** Leaf hashes, paths and merkle root of a script tree; throws TaprootError on a malformed tree. */
export function buildTapTree(tree: TapTree): TapTreeInfo {
  const { hash, leaves } = buildSubtree(tree, 0);
  return { merkleRoot: hash, leaves };
}

export interface TweakedKey {
  /** x-only output key. */
  readonly outputKey: Uint8Array;
  /** Parity of the output key's y coordinate, the low bit of the control block's first byte. */
  readonly parity: 0 | 1;
}

const CURVE_ORDER = Point.CURVE().n;

/**
 * lift_x(internalKey) + tweak·G. Null when the internal key is not an x coordinate on
 * the curve, the tweak is not below the group order, or the sum is the point at infinity.
 */
export function tweakPublicKey(internalKey: Uint8Array, tweak: Uint8Array): TweakedKey | null {
  if (internalKey.length !== 32 || tweak.length !== 32) return null;
  const t = etc.bytesToNumberBE(tweak);
  if (t >= CURVE_ORDER) return null;
  const native = nativeKeyTweaks();
  if (native) {
    const sum = native.xonlyTweakAdd(internalKey, tweak);
    return sum ? { outputKey: new Uint8Array(sum.subarray(1)), parity: sum[0] === 0x03 ? 1 : 0 } : null;
  }
  let point: Point;
  try {
    // The even-y point with this x: BIP340's lift_x.
    point = Point.fromBytes(concatBytes(Uint8Array.of(0x02), internalKey));
  } catch {
    return null;
  }
  const tweaked = t === 0n ? point : point.add(Point.BASE.multiply(t));
  if (tweaked.is0()) return null;
  const compressed = tweaked.toBytes(true);
  return { outputKey: compressed.slice(1), parity: compressed[0] === 0x03 ? 1 : 0 };
}

/** The control block that proves `info`'s leaf under an output key of this parity. */
export function controlBlock(info: TapLeafInfo, internalKey: Uint8Array, parity: 0 | 1): Uint8Array {
  return concatBytes(Uint8Array.of(info.leaf.leafVersion | parity), internalKey, ...info.path);
}

export interface TaprootLeafSpend extends TapLeafInfo {
  readonly controlBlock: Uint8Array;
}

export interface TaprootOutput extends TweakedKey {
  readonly internalKey: Uint8Array;
  readonly merkleRoot: Uint8Array | null;
  readonly tweak: Uint8Array;
  /** OP_1 <32-byte output key>. */
  readonly scriptPubKey: Uint8Array;
  readonly leaves: readonly TaprootLeafSpend[];
}

/**
 * Everything needed to pay to and spend from a taproot output with this internal key
 * and optional script tree. Throws TaprootError when the key or tree is unusable.
 */
export function taprootOutput(internalKey: Uint8Array, tree: TapTree | null): TaprootOutput {
  const treeInfo = tree ? buildTapTree(tree) : null;
  const merkleRoot = treeInfo ? treeInfo.merkleRoot : null;
  const tweak = taptweakHash(internalKey, merkleRoot ?? undefined);
  const tweaked = tweakPublicKey(internalKey, tweak);
  if (!tweaked) throw new TaprootError('internal key is not a valid x-only public key');
  const leaves = (treeInfo?.leaves ?? []).map((info) => ({ ...info, controlBlock: controlBlock(info, internalKey, tweaked.parity) }));
  return {
    internalKey,
    merkleRoot,
    tweak,
    ...tweaked,
    scriptPubKey: concatBytes(Uint8Array.of(OP.OP_1, 32), tweaked.outputKey),
    leaves,
  };
}
