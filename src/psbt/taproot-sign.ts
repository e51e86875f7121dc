/**
 * Core's SignTaproot and SignTaprootScript (script/sign.cpp) over a PSBT input: the key
 * path with the internal key tweaked by the merkle root, else the smallest tapscript leaf a
 * miniscript satisfaction completes. Signatures are BIP340 with zero auxiliary randomness
 * (Core's "uint256{} as aux_rnd"), so they are bitcoind's bytes. Found signatures, spend
 * data and key origins go straight into the input, as FromSignatureData would put them.
 */
import { etc, Point, schnorr } from '@noble/secp256k1';
import { compactSizeLength, concatBytes, toHex, type Transaction } from '../primitives/index.js';
import { miniscriptFromScript, satisfy, type KeyInferrer } from '../script/miniscript/index.js';
import {
  PrecomputedTransactionData,
  tapleafHash,
  taprootSignatureHash,
  taptweakHash,
  TransactionSignatureChecker,
  type KeyOriginInfo,
  type TaprootSigner,
} from '../script/index.js';
import { sortedControlBlocks, sortedTapScripts } from './serialize.js';
import { isNull32, preimageMaps, tapScriptKey, type PsbtInput, type TapLeafScripts, type TapTreeLeaf } from './types.js';

const TAPSCRIPT_LEAF = 0xc0;
const CURVE_ORDER = Point.CURVE().n;

/** Core's TaprootSpendData for one output key. */
export interface TaprootSpendData {
  readonly internalKey: Uint8Array;
  /** Null for a key-path-only output. */
  readonly merkleRoot: Uint8Array | null;
  readonly scripts: readonly { script: Uint8Array; leafVersion: number; controlBlock: Uint8Array }[];
  /** The leaves with their depths in depth-first order (Core's TaprootBuilder tree tuples). */
  readonly tree: readonly TapTreeLeaf[];
}

/** What a taproot signer may know: keys by x-only key, their origins, and spend data by output key. */
export interface TaprootKeys {
  secretByXOnly(xonly: Uint8Array): Uint8Array | undefined;
  originByXOnly(xonly: Uint8Array): KeyOriginInfo | undefined;
  spendData(outputKey: Uint8Array): TaprootSpendData | undefined;
  /** MuSig2 aggregate keys (hex, compressed) and their participants. */
  musigParticipants(): ReadonlyMap<string, Uint8Array[]>;
  /** A full public key's origin. */
  originOf(pubkey: Uint8Array): KeyOriginInfo | undefined;
}

/** CKey::SignSchnorr: the key, tweaked by TapTweak(merkle root) when `tweak` is given, signs with zero aux randomness. */
function signSchnorr(digest: Uint8Array, secret: Uint8Array, tweakRoot: Uint8Array | null | undefined): Uint8Array {
  let d = etc.bytesToNumberBE(secret);
  if (tweakRoot !== undefined) {
    const point = Point.BASE.multiply(d);
    if (point.toAffine().y & 1n) d = CURVE_ORDER - d;
    const xonly = point.toBytes(true).subarray(1);
    const t = etc.bytesToNumberBE(taptweakHash(xonly, tweakRoot ?? undefined));
    d = (d + t) % CURVE_ORDER;
  }
  return schnorr.sign(digest, etc.numberToBytesBE(d), new Uint8Array(32));
}

const stackSize = (stack: readonly Uint8Array[]) => compactSizeLength(stack.length) + stack.reduce((n, item) => n + compactSizeLength(item.length) + item.length, 0);

/**
 * The TaprootSigner for input `index`: `keys` null is Core's DUMMY_SIGNING_PROVIDER; txdata
 * null is Core's DUMMY_SIGNATURE_CREATOR (64 zero bytes for any key) unless `dummy` is false,
 * a creator without transaction data that signs nothing.
 */
export function taprootSigner(
  keys: TaprootKeys | null,
  input: PsbtInput,
  tx: Transaction,
  index: number,
  hashType: number,
  txdata: PrecomputedTransactionData | null,
  dummy = txdata === null,
): TaprootSigner {
  return (_data, outputKey) => {
    // The spend data: the input's, merged with the provider's.
    const scripts = new Map<string, TapLeafScripts>();
    for (const [key, leaf] of input.tapScripts) scripts.set(key, { ...leaf, controlBlocks: new Map(leaf.controlBlocks) });
    const known = keys?.spendData(outputKey);
    if (known) {
      if (isNull32(input.tapInternalKey)) input.tapInternalKey = known.internalKey;
      if (isNull32(input.tapMerkleRoot) && known.merkleRoot) input.tapMerkleRoot = known.merkleRoot;
      for (const { script, leafVersion, controlBlock } of known.scripts) {
        const key = tapScriptKey(toHex(script), leafVersion);
        let leaf = scripts.get(key);
        if (!leaf) scripts.set(key, (leaf = { script, leafVersion, controlBlocks: new Map() }));
        leaf.controlBlocks.set(toHex(controlBlock), controlBlock);
        if (!input.tapScripts.has(key)) input.tapScripts.set(key, { script, leafVersion, controlBlocks: new Map([[toHex(controlBlock), controlBlock]]) });
      }
    }
    // Every aggregate the provider knows is recorded, whether or not this output uses it.
    for (const [aggregate, participants] of keys?.musigParticipants() ?? []) if (!input.musig2Participants.has(aggregate)) input.musig2Participants.set(aggregate, participants);
    const internalKey = input.tapInternalKey;
    const merkleRoot = isNull32(input.tapMerkleRoot) ? null : input.tapMerkleRoot;

    /** Core's taproot_misc_pubkeys: a key's origin, with the leaves it was asked to sign in. */
    const addKeyPath = (xonly: Uint8Array, origin: KeyOriginInfo, leafHash: Uint8Array | undefined) => {
      const existing = input.tapBip32Paths.get(toHex(xonly));
      if (!existing) input.tapBip32Paths.set(toHex(xonly), { leafHashes: new Set(leafHash ? [toHex(leafHash)] : []), origin });
      else if (leafHash) existing.leafHashes.add(toHex(leafHash));
    };
    const noteOrigin = (xonly: Uint8Array, leafHash?: Uint8Array) => {
      const origin = keys?.originByXOnly(xonly);
      if (origin) addKeyPath(xonly, origin, leafHash);
    };
    /** Core's SignMuSig2 as far as it goes without participant keys: the participants' origins. */
    const noteMusigParticipants = (leafHash: Uint8Array | undefined) => {
      for (const participants of keys?.musigParticipants().values() ?? []) {
        for (const participant of participants) {
          const origin = keys!.originOf(participant);
          if (origin) addKeyPath(participant.subarray(1), origin, leafHash);
        }
      }
    };
    /** Core's CreateSchnorrSig; `tweakRoot` undefined for tapscript (no tweak). */
    const createSig = (xonly: Uint8Array, leafHash: Uint8Array | undefined, tweakRoot: Uint8Array | null | undefined): Uint8Array | null => {
      if (dummy) return new Uint8Array(64);
      if (!txdata) {
        noteMusigParticipants(leafHash);
        return null;
      }
      const secret = keys?.secretByXOnly(xonly);
      if (!secret || !txdata.spentOutputs) {
        noteMusigParticipants(leafHash);
        return null;
      }
      const digest = taprootSignatureHash(tx, index, hashType, txdata, { annexHash: undefined, ...(leafHash ? { tapleafHash: leafHash, codeseparatorPosition: 0xffffffff } : {}) }, leafHash !== undefined);
      if (!digest) {
        noteMusigParticipants(leafHash);
        return null;
      }
      const sig = signSchnorr(digest, secret, tweakRoot);
      return hashType ? concatBytes(sig, Uint8Array.of(hashType)) : sig;
    };

    // Key path: the internal key tweaked by the merkle root, else the output key itself (rawtr()).
    noteOrigin(internalKey);
    noteOrigin(outputKey);
    if (input.tapKeySig.length === 0) {
      const sig = createSig(internalKey, undefined, merkleRoot);
      if (sig) input.tapKeySig = sig;
    }
    if (input.tapKeySig.length === 0) {
      const sig = createSig(outputKey, undefined, undefined);
      if (sig) input.tapKeySig = sig;
    }
    if (input.tapKeySig.length > 0) return [input.tapKeySig];

    // Script path: the smallest satisfied leaf.
    let smallest: Uint8Array[] | null = null;
    const checker = txdata ? new TransactionSignatureChecker(tx, index, 0n, txdata) : null;
    for (const leaf of sortedTapScripts({ ...input, tapScripts: scripts })) {
      if (leaf.leafVersion !== TAPSCRIPT_LEAF) continue;
      const leafHash = tapleafHash(leaf.leafVersion, leaf.script);
      const pubkeys: Uint8Array[] = [];
      const inferrer: KeyInferrer = {
        ctx: 'tapscript',
        fromPKBytes: (bytes) => (bytes.length === 32 ? pubkeys.push(bytes) - 1 : null),
        fromPKHBytes: () => null,
        keyIdentity: (key) => toHex(pubkeys[key]!),
      };
      const node = miniscriptFromScript(leaf.script, inferrer);
      if (!node) continue;
      const result = satisfy(node, {
        sign: (key) => {
          const xonly = pubkeys[key]!;
          noteOrigin(xonly, leafHash);
          const id = toHex(xonly) + toHex(leafHash);
          const pooled = input.tapScriptSigs.get(id);
          if (pooled) return pooled;
          const sig = createSig(xonly, leafHash, undefined);
          if (sig) input.tapScriptSigs.set(id, sig);
          return sig;
        },
        pkBytes: (key) => pubkeys[key]!,
        checkOlder: (value) => checker?.checkSequence(value) ?? true,
        checkAfter: (value) => checker?.checkLockTime(value) ?? true,
        preimage: (fragment, hash) => preimageMaps(input).find(([name]) => name === fragment)![1].get(toHex(hash)),
      });
      if (result.available !== 'yes' || !result.stack) continue;
      const stack = [...result.stack, leaf.script, sortedControlBlocks(leaf.controlBlocks)[0]!];
      if (!smallest || stackSize(smallest) > stackSize(stack)) smallest = stack;
    }
    return smallest;
  };
}
