/**
 * Core's script/sign.cpp for inputs: DataFromTransaction reads the signatures, redeem
 * script and witness script out of an input, MergeSignatureData pools them (a complete
 * input wins outright), and ProduceSignature builds the scriptSig and witness from what was
 * pooled plus what an InputSigner (Core's signing provider and signature creator) adds:
 * nothing for combinerawtransaction, private keys and scripts for signrawtransactionwithkey.
 *
 * Witness scripts that are not multisig, pubkey or pubkeyhash are satisfied as Core does,
 * as miniscript from the pooled signatures (no hash preimages are ever known). Taproot
 * needs nothing: Core's extractor has no spent outputs, so no taproot signature verifies
 * and an incomplete taproot input leaves with an empty witness, as here.
 */
import { bytesEqual, hash160, ripemd160, toHex, type Transaction, type TxOut } from '../primitives/index.js';
import { NULL_SIGNATURE_CHECKER, SigVersion, TransactionSignatureChecker, type SignatureChecker } from './checker.js';
import { ScriptError } from './errors.js';
import { STANDARD_SCRIPT_VERIFY_FLAGS, VerifyFlags } from './flags.js';
import { evalScript } from './interpreter.js';
import { miniscriptFromScript, satisfy, type KeyInferrer, type SatisfierContext } from './miniscript/index.js';
import { OP } from './opcodes.js';
import { pushData } from './parse.js';
import { solve } from './standard.js';
import { verifyScript } from './verify.js';

interface SignaturePair {
  readonly pubkey: Uint8Array;
  readonly sig: Uint8Array;
}

/** Core's KeyOriginInfo: the master key's fingerprint and the derivation path. */
export interface KeyOriginInfo {
  readonly fingerprint: Uint8Array;
  readonly path: readonly number[];
}

/** Core's SignatureData, as far as combining, signing and PSBTs use it. */
export interface SignatureData {
  complete: boolean;
  scriptSig: Uint8Array;
  witness: readonly Uint8Array[];
  redeemScript: Uint8Array;
  witnessScript: Uint8Array;
  /** By hex key id (hash160 of the public key); the first signature found for a key stays. */
  readonly signatures: Map<string, SignaturePair>;
  /** Core's misc_pubkeys: keys with their origins, by hex key id (a PSBT's BIP32 derivations). */
  readonly miscPubkeys: Map<string, { pubkey: Uint8Array; origin: KeyOriginInfo }>;
  /** What signing lacked, by hex key id or script hash (analyzepsbt reports them). */
  readonly missingPubkeys: string[];
  readonly missingSigs: string[];
  missingRedeemScript: string;
  missingWitnessScript: string;
  /** Hash preimages miniscript may reveal, by `<fragment>:<hex hash>` (sha256, ripemd160, hash256, hash160). */
  readonly preimages: Map<string, Uint8Array>;
}

export function emptySignatureData(): SignatureData {
  return {
    complete: false,
    scriptSig: new Uint8Array(0),
    witness: [],
    redeemScript: new Uint8Array(0),
    witnessScript: new Uint8Array(0),
    signatures: new Map(),
    miscPubkeys: new Map(),
    missingPubkeys: [],
    missingSigs: [],
    missingRedeemScript: '',
    missingWitnessScript: '',
    preimages: new Map(),
  };
}

const keyId = (pubkey: Uint8Array) => toHex(hash160(pubkey));

/** What ProduceSignature may sign with: Core's SigningProvider and signature creator (ECDSA). */
export interface InputSigner {
  /** The public key with this key id (hex HASH160), when known. */
  pubkey(keyId: string): Uint8Array | undefined;
  /** A script by its HASH160. */
  script(scriptId: Uint8Array): Uint8Array | undefined;
  /** The key's signature (DER and hash type) over the input with this script code, or null. */
  sign(keyId: string, scriptCode: Uint8Array, sigversion: SigVersion): Uint8Array | null;
  /** The key's origin, when the provider knows and shows it (descriptor keys). */
  keyOrigin?(keyId: string): KeyOriginInfo | undefined;
}

/** Core's DUMMY_SIGNING_PROVIDER with a creator that signs nothing. */
export const NO_SIGNER: InputSigner = { pubkey: () => undefined, script: () => undefined, sign: () => null };

/** Core's SignatureExtractorChecker: every ECDSA signature that verifies is recorded. */
function extractorChecker(tx: Transaction, inputIndex: number, amount: bigint, data: SignatureData): SignatureChecker {
  // Without spent outputs, as Core's MutableTransactionSignatureChecker here: taproot sighashes fail.
  const checker = new TransactionSignatureChecker(tx, inputIndex, amount);
  return {
    checkEcdsaSignature(sig, pubkey, scriptCode, sigversion) {
      if (!checker.checkEcdsaSignature(sig, pubkey, scriptCode, sigversion)) return false;
      const id = keyId(pubkey);
      if (!data.signatures.has(id)) data.signatures.set(id, { pubkey, sig });
      return true;
    },
    checkSchnorrSignature: (sig, pubkey, sigversion, context) => checker.checkSchnorrSignature(sig, pubkey, sigversion, context),
    checkLockTime: (lockTime) => checker.checkLockTime(lockTime),
    checkSequence: (sequence) => checker.checkSequence(sequence),
  };
}

const lastNonEmpty = (stack: readonly Uint8Array[]) => stack.length > 0 && stack[stack.length - 1]!.length > 0;

/** Core's DataFromTransaction for input `inputIndex` of `tx`, spending `spent`. */
export function dataFromTransaction(tx: Transaction, inputIndex: number, spent: TxOut): SignatureData {
  const input = tx.inputs[inputIndex]!;
  const data = emptySignatureData();
  data.scriptSig = input.scriptSig;
  data.witness = input.witness;
  const extractor = extractorChecker(tx, inputIndex, spent.value, data);
  if (verifyScript(input.scriptSig, spent.scriptPubKey, input.witness, STANDARD_SCRIPT_VERIFY_FLAGS, extractor) === ScriptError.OK) {
    data.complete = true;
    return data;
  }

  let scriptStack: Uint8Array[] = [];
  evalScript(scriptStack, input.scriptSig, VerifyFlags.STRICTENC, NULL_SIGNATURE_CHECKER, SigVersion.BASE);
  let witnessStack = [...input.witness];
  let solution = solve(spent.scriptPubKey);
  let sigversion = SigVersion.BASE;
  let nextScript = spent.scriptPubKey;
  if (solution.type === 'scripthash' && lastNonEmpty(scriptStack)) {
    data.redeemScript = scriptStack.pop()!;
    nextScript = data.redeemScript;
    solution = solve(nextScript);
  }
  if (solution.type === 'witness_v0_scripthash' && lastNonEmpty(witnessStack)) {
    data.witnessScript = witnessStack.pop()!;
    nextScript = data.witnessScript;
    solution = solve(nextScript);
    scriptStack = witnessStack;
    witnessStack = [];
    sigversion = SigVersion.WITNESS_V0;
  }
  if (solution.type === 'multisig' && scriptStack.length > 0) {
    // Signatures come in key order: each is matched from the key after the last match.
    let lastMatch = 0;
    for (const sig of scriptStack) {
      for (let i = lastMatch; i < solution.pubkeys.length; i++) {
        const pubkey = solution.pubkeys[i]!;
        if (data.signatures.has(keyId(pubkey)) || extractor.checkEcdsaSignature(sig, pubkey, nextScript, sigversion)) {
          lastMatch = i + 1;
          break;
        }
      }
    }
  }
  return data;
}

/** Core's SignatureData::MergeSignatureData. */
export function mergeSignatureData(into: SignatureData, from: SignatureData): SignatureData {
  if (into.complete) return into;
  if (from.complete) return from;
  if (into.redeemScript.length === 0 && from.redeemScript.length > 0) into.redeemScript = from.redeemScript;
  if (into.witnessScript.length === 0 && from.witnessScript.length > 0) into.witnessScript = from.witnessScript;
  for (const [id, pair] of from.signatures) if (!into.signatures.has(id)) into.signatures.set(id, pair);
  return into;
}

/** Core's GetCScript: the provider's script with that HASH160, else the input's redeem or witness script. */
function knownScript(data: SignatureData, signer: InputSigner, scriptId: Uint8Array): Uint8Array | undefined {
  const provided = signer.script(scriptId);
  if (provided) return provided;
  if (bytesEqual(hash160(data.redeemScript), scriptId)) return data.redeemScript;
  if (bytesEqual(hash160(data.witnessScript), scriptId)) return data.witnessScript;
  return undefined;
}

interface Step {
  solved: boolean;
  type: string;
  result: Uint8Array[];
}

/** Core's CreateSig: the pooled signature for the key, else a new one, pooled. */
function createSig(data: SignatureData, signer: InputSigner, pubkey: Uint8Array, scriptCode: Uint8Array, sigversion: SigVersion): Uint8Array | null {
  const id = keyId(pubkey);
  const pooled = data.signatures.get(id);
  if (pooled) return pooled.sig;
  const origin = signer.keyOrigin?.(id);
  if (origin && !data.miscPubkeys.has(id)) data.miscPubkeys.set(id, { pubkey, origin });
  const sig = signer.sign(id, scriptCode, sigversion);
  if (sig) data.signatures.set(id, { pubkey, sig });
  else data.missingSigs.push(id);
  return sig;
}

/** Core's GetPubKey: from a pooled signature, else a known derivation, else the provider. */
function knownPubkey(data: SignatureData, signer: InputSigner, id: string): Uint8Array | undefined {
  return data.signatures.get(id)?.pubkey ?? data.miscPubkeys.get(id)?.pubkey ?? signer.pubkey(id);
}

/** Core's SignStep (no taproot: nothing here knows taproot spend data). */
function signStep(data: SignatureData, signer: InputSigner, script: Uint8Array, sigversion: SigVersion): Step {
  const solution = solve(script);
  const step = (solved: boolean, result: Uint8Array[] = []): Step => ({ solved, type: solution.type, result });
  switch (solution.type) {
    case 'pubkey': {
      const sig = createSig(data, signer, solution.pubkey, script, sigversion);
      return sig ? step(true, [sig]) : step(false);
    }
    case 'pubkeyhash': {
      const pubkey = knownPubkey(data, signer, toHex(solution.hash));
      if (!pubkey) data.missingPubkeys.push(toHex(solution.hash));
      const sig = pubkey && createSig(data, signer, pubkey, script, sigversion);
      return pubkey && sig ? step(true, [sig, pubkey]) : step(false);
    }
    case 'scripthash': {
      const redeem = knownScript(data, signer, solution.hash);
      if (!redeem) data.missingRedeemScript = toHex(solution.hash);
      return redeem ? step(true, [redeem]) : step(false);
    }
    case 'multisig': {
      const result: Uint8Array[] = [new Uint8Array(0)];
      // Every key is tried, so that every signature that can be made is pooled.
      for (const pubkey of solution.pubkeys) {
        const sig = createSig(data, signer, pubkey, script, sigversion);
        if (sig && result.length < solution.required + 1) result.push(sig);
      }
      const solved = result.length === solution.required + 1;
      // Core's loop counts up while the stack grows, so it adds at most half the missing placeholders.
      for (let i = 0; i + result.length < solution.required + 1; i++) result.push(new Uint8Array(0));
      return step(solved, result);
    }
    case 'witness_v0_keyhash':
      return step(true, [solution.program]);
    case 'witness_v0_scripthash': {
      const witnessScript = knownScript(data, signer, ripemd160(solution.program));
      if (!witnessScript) data.missingWitnessScript = toHex(solution.program);
      return witnessScript ? step(true, [witnessScript]) : step(false);
    }
    case 'anchor':
      return step(true);
    default:
      return step(false);
  }
}

/** Core's PushAll: empty as OP_0, one byte 1..16 as OP_N, 0x81 as OP_1NEGATE, else a minimal push. */
function pushAll(values: readonly Uint8Array[]): Uint8Array {
  const parts = values.map((v) => {
    if (v.length === 0) return Uint8Array.of(OP.OP_0);
    if (v.length === 1 && v[0]! >= 1 && v[0]! <= 16) return Uint8Array.of(OP.OP_1 + v[0]! - 1);
    if (v.length === 1 && v[0] === 0x81) return Uint8Array.of(OP.OP_1NEGATE);
    return pushData(v);
  });
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** The input being combined: miniscript's timelocks are checked against it. */
export interface SpendingInput {
  readonly tx: Transaction;
  readonly inputIndex: number;
  readonly amount: bigint;
}

/**
 * Core's WshSatisfier over the pooled signatures: the witness stack of a non-malleable
 * satisfaction of `witnessScript` as miniscript, or null. A pkh key is known only by a
 * pooled signature's key; without one the script does not decode.
 */
function satisfyMiniscript(data: SignatureData, signer: InputSigner, witnessScript: Uint8Array, spending: SpendingInput): { stack: readonly Uint8Array[]; solved: boolean } | null {
  const keys: Uint8Array[] = [];
  const index = (key: Uint8Array) => keys.push(key) - 1;
  const inferrer: KeyInferrer = {
    ctx: 'p2wsh',
    fromPKBytes: (bytes) => (isValidPubkeyEncoding(bytes) ? index(bytes) : null),
    fromPKHBytes: (hash) => {
      const pubkey = knownPubkey(data, signer, toHex(hash));
      return pubkey ? index(pubkey) : null;
    },
    keyIdentity: (key) => toHex(keys[key]!),
  };
  const node = miniscriptFromScript(witnessScript, inferrer);
  if (!node) return null;
  const checker = new TransactionSignatureChecker(spending.tx, spending.inputIndex, spending.amount);
  const ctx: SatisfierContext = {
    sign: (key) => createSig(data, signer, keys[key]!, witnessScript, SigVersion.WITNESS_V0),
    pkBytes: (key) => keys[key]!,
    checkOlder: (value) => checker.checkSequence(value),
    checkAfter: (value) => checker.checkLockTime(value),
    preimage: (fragment, hash) => data.preimages.get(`${fragment}:${toHex(hash)}`),
  };
  const { available, stack } = satisfy(node, ctx);
  return stack ? { stack, solved: available === 'yes' } : null;
}

/** CPubKey::IsValid: the length its first byte announces. */
function isValidPubkeyEncoding(bytes: Uint8Array): boolean {
  const header = bytes[0];
  if (header === 2 || header === 3) return bytes.length === 33;
  if (header === 4 || header === 6 || header === 7) return bytes.length === 65;
  return false;
}

const payToPubkeyHashScript = (hash: Uint8Array) => Uint8Array.of(OP.OP_DUP, OP.OP_HASH160, 20, ...hash, OP.OP_EQUALVERIFY, OP.OP_CHECKSIG);

/** What ProduceSignature built: the scriptSig and witness, whether SignStep solved the script, and whether it is a witness spend. */
export interface ProducedSignature {
  scriptSig: Uint8Array;
  witness: readonly Uint8Array[];
  solved: boolean;
  isWitness: boolean;
}

/** Taproot's SignStep (Core's SignTaproot), for callers that know taproot spend data. */
export type TaprootSigner = (data: SignatureData, outputKey: Uint8Array) => Uint8Array[] | null;

/** Core's ProduceSignature: the input's scriptSig and witness (Core's UpdateInput), without its final check. */
export function produceSignature(
  data: SignatureData,
  scriptPubKey: Uint8Array,
  spending: SpendingInput,
  signer: InputSigner = NO_SIGNER,
  taproot?: TaprootSigner,
): ProducedSignature {
  // Core returns before it learns whether the spend is a witness one.
  if (data.complete) return { scriptSig: data.scriptSig, witness: data.witness, solved: true, isWitness: false };
  let { solved, type, result } = signStep(data, signer, scriptPubKey, SigVersion.BASE);
  let p2sh = false;
  let subscript: Uint8Array = new Uint8Array(0);
  let witness: readonly Uint8Array[] = data.witness;
  let isWitness = false;
  if (solved && type === 'scripthash') {
    subscript = result[0]!;
    data.redeemScript = subscript;
    ({ solved, type, result } = signStep(data, signer, subscript, SigVersion.BASE));
    solved = solved && type !== 'scripthash';
    p2sh = true;
  }
  if (solved && type === 'witness_v0_keyhash') {
    const inner = signStep(data, signer, payToPubkeyHashScript(result[0]!), SigVersion.WITNESS_V0);
    solved = inner.solved;
    witness = inner.result;
    isWitness = true;
    result = [];
  } else if (solved && type === 'witness_v0_scripthash') {
    const witnessScript = result[0]!;
    data.witnessScript = witnessScript;
    const inner = signStep(data, signer, witnessScript, SigVersion.WITNESS_V0);
    solved = inner.solved && inner.type !== 'scripthash' && inner.type !== 'witness_v0_scripthash' && inner.type !== 'witness_v0_keyhash';
    let stack: readonly Uint8Array[] = inner.result;
    if (!solved && stack.length === 0) {
      const satisfied = satisfyMiniscript(data, signer, witnessScript, spending);
      stack = satisfied?.stack ?? [];
      solved = satisfied?.solved ?? false;
    }
    witness = [...stack, witnessScript];
    isWitness = true;
    result = [];
  } else if (type === 'witness_v1_taproot' && !p2sh) {
    isWitness = true;
    const stack = taproot ? taproot(data, scriptPubKey.subarray(2)) : null;
    if (stack) {
      solved = true;
      witness = stack;
    }
    result = [];
  } else if (solved && type === 'witness_unknown') {
    isWitness = true;
  }
  if (!isWitness) witness = [];
  if (p2sh) result.push(subscript);
  return { scriptSig: pushAll(result), witness, solved, isWitness };
}
