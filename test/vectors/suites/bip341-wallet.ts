/**
 * The scriptPubKey half of bip341_wallet_vectors.json: from an internal key and a
 * script tree, every intermediary value (leaf hashes, merkle root, tweak, tweaked key)
 * and every output (scriptPubKey, bech32m address, control blocks). The
 * keyPathSpending half belongs to the signature-hash suite.
 */
import { fromHex, toHex } from '../../../src/primitives/index.js';
import { encodeAddress, taprootOutput, type TapLeaf, type TapTree } from '../../../src/script/index.js';
import { readVectorJson, Tally, type VectorSuite } from '../../support/vectors.js';

const FILE = 'bip341_wallet_vectors.json';

interface JsonLeaf {
  id: number;
  script: string;
  leafVersion: number;
}
type JsonTree = JsonLeaf | [JsonTree, JsonTree];

interface ScriptPubKeyCase {
  given: { internalPubkey: string; scriptTree: JsonTree | null };
  intermediary: { leafHashes?: string[]; merkleRoot: string | null; tweak: string; tweakedPubkey: string };
  expected: { scriptPubKey: string; bip350Address: string; scriptPathControlBlocks?: string[] };
}

/** Converts the JSON tree, remembering each leaf's id so results can be matched to the vector's lists. */
function toTapTree(tree: JsonTree, ids: Map<TapLeaf, number>): TapTree {
  if (Array.isArray(tree)) return [toTapTree(tree[0], ids), toTapTree(tree[1], ids)];
  const leaf: TapLeaf = { script: fromHex(tree.script), leafVersion: tree.leafVersion };
  ids.set(leaf, tree.id);
  return leaf;
}

/** Names of the values that differ from the vector; empty when all match. */
function checkCase(c: ScriptPubKeyCase): string[] {
  const ids = new Map<TapLeaf, number>();
  const tree = c.given.scriptTree ? toTapTree(c.given.scriptTree, ids) : null;
  const output = taprootOutput(fromHex(c.given.internalPubkey), tree);
  const leafHashes: string[] = [];
  const controlBlocks: string[] = [];
  for (const leaf of output.leaves) {
    const id = ids.get(leaf.leaf)!;
    leafHashes[id] = toHex(leaf.leafHash);
    controlBlocks[id] = toHex(leaf.controlBlock);
  }
  const comparisons: [string, unknown, unknown][] = [
    ['leafHashes', leafHashes, c.intermediary.leafHashes ?? []],
    ['merkleRoot', output.merkleRoot ? toHex(output.merkleRoot) : null, c.intermediary.merkleRoot],
    ['tweak', toHex(output.tweak), c.intermediary.tweak],
    ['tweakedPubkey', toHex(output.outputKey), c.intermediary.tweakedPubkey],
    ['scriptPubKey', toHex(output.scriptPubKey), c.expected.scriptPubKey],
    ['bip350Address', encodeAddress(output.scriptPubKey, 'main'), c.expected.bip350Address],
    ['scriptPathControlBlocks', controlBlocks, c.expected.scriptPathControlBlocks ?? []],
  ];
  return comparisons.filter(([, got, want]) => JSON.stringify(got) !== JSON.stringify(want)).map(([name]) => name);
}

export const suite: VectorSuite = {
  file: `${FILE} (scriptPubKey)`,
  run() {
    const tally = new Tally();
    const cases = readVectorJson<{ scriptPubKey: ScriptPubKeyCase[] }>(FILE).scriptPubKey;
    cases.forEach((c, index) => {
      let mismatched: string[] = [];
      tally.run(
        () => `scriptPubKey[${index}] (internal key ${c.given.internalPubkey}): wrong ${mismatched.join(', ')}`,
        () => {
          mismatched = checkCase(c);
          return mismatched.length === 0;
        },
      );
    });
    return tally;
  },
};
