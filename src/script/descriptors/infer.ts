/**
 * Core's InferDescriptor: the descriptor a node prints for a script it has no wallet
 * knowledge of (every scriptPubKey object's "desc"), and, given known redeem scripts and
 * public keys, the sh()/wsh()/pkh()/wpkh() forms decodescript prints for wrapped scripts.
 * scriptPubKeyDescriptor is the fast path for the first use: no descriptor objects, one
 * template match and one checksum.
 */
import { concatBytes, hash160, ripemd160, toHex } from '../../primitives/index.js';
import { encodeAddress } from '../address.js';
import type { ChainName } from '../chain-prefixes.js';
import { MAX_PUBKEYS_PER_MULTISIG } from '../limits.js';
import { OP } from '../opcodes.js';
import { isMinimalPush, readOp } from '../parse.js';
import { decodeScriptNum, ScriptNumError } from '../scriptnum.js';
import { solve, type Solution } from '../standard.js';
import { addChecksum } from './checksum.js';
import { ConstKey, OriginKey, type KeyExpression } from './keys.js';
import { inferMiniscript } from './miniscript-descriptor.js';
import { isValidXOnlyKey } from './xonly.js';
import {
  AddrDescriptor,
  Descriptor,
  MultiADescriptor,
  MultisigDescriptor,
  PkDescriptor,
  PkhDescriptor,
  RawDescriptor,
  RawTrDescriptor,
  ShDescriptor,
  WpkhDescriptor,
  WshDescriptor,
} from './nodes.js';

const MAX_PUBKEYS_PER_MULTI_A = 999;

/** Where a script being inferred sits. */
export type InferContext = 'top' | 'p2sh' | 'p2wsh' | 'p2tr';

/** Where a key came from: the fingerprint and path Core's KeyOriginInfo holds. */
export interface KeyOrigin {
  readonly fingerprint: Uint8Array;
  readonly path: readonly number[];
}

/** Scripts, public keys and key origins the caller knows, found by HASH160 as Core's SigningProvider does. */
export class ScriptKnowledge {
  private readonly scripts = new Map<string, Uint8Array>();
  private readonly pubkeys = new Map<string, Uint8Array>();
  private readonly origins = new Map<string, KeyOrigin>();

  /** A redeem or witness script, for sh() and wsh() outputs that commit to it. */
  addScript(script: Uint8Array): this {
    this.scripts.set(toHex(hash160(script)), script);
    return this;
  }

  /**
   * A public key, for pkh(), wpkh() and pk_h outputs that commit to its hash: HASH160 of the
   * key, or of its x-only form where a tapscript commits to that. The first key for a hash stays.
   */
  addPubkey(pubkey: Uint8Array, hash: Uint8Array = hash160(pubkey)): this {
    const id = toHex(hash);
    if (!this.pubkeys.has(id)) this.pubkeys.set(id, pubkey);
    return this;
  }

  /** Where a public key came from; inferred descriptors print it as `[fingerprint/path]`. The first origin stays. */
  addOrigin(pubkey: Uint8Array, origin: KeyOrigin): this {
    const id = toHex(hash160(pubkey));
    if (!this.origins.has(id)) this.origins.set(id, origin);
    return this;
  }

  origin(pubkey: Uint8Array): KeyOrigin | null {
    return this.origins.get(toHex(hash160(pubkey))) ?? null;
  }

  /** Core's GetKeyOriginByXOnly: the origin of the even or the odd key with this x coordinate. */
  originByXOnly(x: Uint8Array): KeyOrigin | null {
    return this.origin(concatBytes(Uint8Array.of(2), x)) ?? this.origin(concatBytes(Uint8Array.of(3), x));
  }

  script(hash: Uint8Array): Uint8Array | null {
    return this.scripts.get(toHex(hash)) ?? null;
  }

  pubkey(hash: Uint8Array): Uint8Array | null {
    return this.pubkeys.get(toHex(hash)) ?? null;
  }
}

/** Core's CPubKey::IsValidNonHybrid: only the length and prefix byte are checked. */
function isNonHybrid(key: Uint8Array): boolean {
  return (key.length === 33 && (key[0] === 2 || key[0] === 3)) || (key.length === 65 && key[0] === 4);
}


function withOrigin(key: ConstKey, origin: KeyOrigin | null): KeyExpression {
  return origin ? new OriginKey(origin.fingerprint, origin.path, key, false) : key;
}

/** Core's InferPubkey: no hybrid keys anywhere, uncompressed ones only at top level and in sh(); the origin when known. */
function inferPubkey(key: Uint8Array, ctx: InferContext | 'p2wpkh', chain: ChainName, knowledge: ScriptKnowledge): KeyExpression | null {
  if (!isNonHybrid(key)) return null;
  if (ctx !== 'top' && ctx !== 'p2sh' && key.length !== 33) return null;
  return withOrigin(new ConstKey(key, false, chain), knowledge.origin(key));
}

/** Core's InferXOnlyPubkey: the even key with this x coordinate, and its origin when known. */
function inferXOnly(x: Uint8Array, chain: ChainName, knowledge: ScriptKnowledge): KeyExpression {
  return withOrigin(new ConstKey(concatBytes(Uint8Array.of(2), x), true, chain), knowledge.originByXOnly(x));
}

/** Core's GetScriptNumber: OP_1..OP_16 or a minimal push of a minimal number, within [min, max]. */
function scriptNumber(opcode: number, data: Uint8Array | undefined, min: number, max: number): number | null {
  let value: number;
  if (opcode >= OP.OP_1 && opcode <= OP.OP_16) {
    value = opcode - (OP.OP_1 - 1);
  } else if (opcode > OP.OP_0 && opcode <= OP.OP_PUSHDATA4 && data) {
    if (!isMinimalPush(data, opcode)) return null;
    try {
      value = decodeScriptNum(data, true);
    } catch (err) {
      if (err instanceof ScriptNumError) return null;
      throw err;
    }
  } else {
    return null;
  }
  return value >= min && value <= max ? value : null;
}

/** Core's MatchMultiA: <32-byte key> CHECKSIG (<key> CHECKSIGADD)* <k> NUMEQUAL. */
export function matchMultiA(script: Uint8Array): { threshold: number; keys: Uint8Array[] } | null {
  if (script.length === 0 || script[0] !== 32 || script[script.length - 1] !== OP.OP_NUMEQUAL) return null;
  const keys: Uint8Array[] = [];
  let pc = 0;
  while (script.length - pc >= 34) {
    if (script[pc] !== 32) return null;
    keys.push(script.subarray(pc + 1, pc + 33));
    pc += 33;
    if (script[pc] !== (keys.length === 1 ? OP.OP_CHECKSIG : OP.OP_CHECKSIGADD)) return null;
    pc += 1;
  }
  if (keys.length === 0 || keys.length > MAX_PUBKEYS_PER_MULTI_A) return null;
  const op = readOp(script, pc);
  if (!op || op.end >= script.length || script[op.end] !== OP.OP_NUMEQUAL || op.end + 1 !== script.length) return null;
  const threshold = scriptNumber(op.opcode, op.data, 1, keys.length);
  return threshold === null ? null : { threshold, keys };
}

/** Core's InferScript. Null where Core returns nothing (only below top level). */
function inferScript(script: Uint8Array, ctx: InferContext, knowledge: ScriptKnowledge, chain: ChainName): Descriptor | null {
  if (ctx === 'p2tr' && script.length === 34 && script[0] === 32 && script[33] === OP.OP_CHECKSIG) {
    return new PkDescriptor(inferXOnly(script.subarray(1, 33), chain, knowledge), true);
  }
  if (ctx === 'p2tr') {
    const multiA = matchMultiA(script);
    if (multiA) return new MultiADescriptor(multiA.threshold, multiA.keys.map((x) => inferXOnly(x, chain, knowledge)), false);
  }
  const solution = solve(script);
  const keyContext = ctx === 'top' || ctx === 'p2sh' || ctx === 'p2wsh';
  if (solution.type === 'pubkey' && keyContext) {
    const key = inferPubkey(solution.pubkey, ctx, chain, knowledge);
    if (key) return new PkDescriptor(key, false);
  }
  if (solution.type === 'pubkeyhash' && keyContext) {
    const pubkey = knowledge.pubkey(solution.hash);
    const key = pubkey ? inferPubkey(pubkey, ctx, chain, knowledge) : null;
    if (key) return new PkhDescriptor(key);
  }
  if (solution.type === 'witness_v0_keyhash' && (ctx === 'top' || ctx === 'p2sh')) {
    const pubkey = knowledge.pubkey(solution.program);
    const key = pubkey ? inferPubkey(pubkey, 'p2wpkh', chain, knowledge) : null;
    if (key) return new WpkhDescriptor(key);
  }
  if (solution.type === 'multisig' && keyContext) {
    const keys = solution.pubkeys.map((pubkey) => inferPubkey(pubkey, ctx, chain, knowledge));
    if (keys.every((key) => key !== null)) return new MultisigDescriptor(solution.required, keys as KeyExpression[], false);
  }
  if (solution.type === 'scripthash' && ctx === 'top') {
    const redeemScript = knowledge.script(solution.hash);
    const sub = redeemScript ? inferScript(redeemScript, 'p2sh', knowledge, chain) : null;
    if (sub) return new ShDescriptor(sub);
  }
  if (solution.type === 'witness_v0_scripthash' && (ctx === 'top' || ctx === 'p2sh')) {
    // The witness script's HASH160 is RIPEMD160 of the program (its SHA256).
    const witnessScript = knowledge.script(ripemd160(solution.program));
    const sub = witnessScript ? inferScript(witnessScript, 'p2wsh', knowledge, chain) : null;
    if (sub) return new WshDescriptor(sub);
  }
  if (solution.type === 'witness_v1_taproot' && ctx === 'top' && isValidXOnlyKey(solution.program)) {
    return new RawTrDescriptor(inferXOnly(solution.program, chain, knowledge));
  }
  if (ctx === 'p2wsh' || ctx === 'p2tr') {
    const miniscript = inferMiniscript(script, ctx, {
      pubkey: (key, keyCtx) => inferPubkey(key, keyCtx, chain, knowledge),
      xOnly: (key) => inferXOnly(key, chain, knowledge),
      pubkeyByHash: (hash) => knowledge.pubkey(hash),
    });
    if (miniscript) return miniscript;
  }
  if (ctx !== 'top') return null;
  // Every script with an address re-encodes to itself, so addr() round-trips as Core requires.
  if (encodeAddress(script, chain) !== null) return new AddrDescriptor(script, chain);
  return new RawDescriptor(script);
}

/**
 * Core's InferDescriptor for a scriptPubKey: pk(), multi(), rawtr(), addr() or raw()
 * without knowledge; sh(), wsh(), pkh(), wpkh() too for scripts and keys in `knowledge`.
 */
export function inferDescriptor(script: Uint8Array, chain: ChainName, knowledge: ScriptKnowledge = new ScriptKnowledge()): Descriptor {
  return inferScript(script, 'top', knowledge, chain)!;
}

/**
 * Core's InferScript below top level (a witness script in wsh(), a tapscript leaf in tr()):
 * the descriptor, or null where Core would need miniscript or finds nothing.
 */
export function inferScriptInContext(
  script: Uint8Array,
  ctx: InferContext,
  chain: ChainName,
  knowledge: ScriptKnowledge = new ScriptKnowledge(),
): Descriptor | null {
  return inferScript(script, ctx, knowledge, chain);
}

/** What a caller may already know of a script, so it is not worked out twice. */
export interface ScriptFacts {
  readonly solution: Solution;
  /** encodeAddress(script, chain). */
  readonly address: string | null;
}

/**
 * The "desc" field of an RPC scriptPubKey object: InferDescriptor with no knowledge, with
 * checksum, computed straight from the template match.
 */
export function scriptPubKeyDescriptor(script: Uint8Array, chain: ChainName, facts?: ScriptFacts): string {
  const solution = facts?.solution ?? solve(script);
  let body: string | null = null;
  if (solution.type === 'pubkey') {
    if (isNonHybrid(solution.pubkey)) body = `pk(${toHex(solution.pubkey)})`;
  } else if (solution.type === 'multisig') {
    // solve() caps the key count at 20; Core's multi() inference has the same bound.
    if (solution.pubkeys.length <= MAX_PUBKEYS_PER_MULTISIG && solution.pubkeys.every(isNonHybrid)) {
      body = `multi(${solution.required},${solution.pubkeys.map(toHex).join(',')})`;
    }
  } else if (solution.type === 'witness_v1_taproot' && isValidXOnlyKey(solution.program)) {
    body = `rawtr(${toHex(solution.program)})`;
  }
  if (body === null) {
    const address = facts ? facts.address : encodeAddress(script, chain);
    body = address !== null ? `addr(${address})` : `raw(${toHex(script)})`;
  }
  return addChecksum(body);
}
