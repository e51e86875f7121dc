/**
 * Core's miniscript satisfier (Node::ProduceInput and Satisfy, InputStack's `+` and `|` in
 * miniscript.cpp): for every node the best satisfaction and dissatisfaction, chosen for
 * non-malleability first and size second, from what the context can sign, and the
 * timelocks it meets. Hash preimages come from the context when it knows them.
 */
import type { Node } from './node.js';

export type Availability = 'no' | 'yes' | 'maybe';

interface InputStack {
  readonly available: Availability;
  readonly hasSig: boolean;
  readonly malleable: boolean;
  readonly nonCanon: boolean;
  /** Serialized witness size (each element plus its length byte); Infinity when unavailable. */
  readonly size: number;
  readonly stack: readonly Uint8Array[];
}

interface InputResult {
  readonly nsat: InputStack;
  readonly sat: InputStack;
}

/** What a satisfaction may use: signatures by key index and the spending transaction's locks. */
export interface SatisfierContext {
  sign(key: number): Uint8Array | null;
  /** The key's bytes as pk_h pushes them. */
  pkBytes(key: number): Uint8Array;
  checkOlder(value: number): boolean;
  checkAfter(value: number): boolean;
  /** The preimage of a hash fragment's hash, when known (a PSBT's preimage fields). */
  preimage?(fragment: 'sha256' | 'ripemd160' | 'hash256' | 'hash160', hash: Uint8Array): Uint8Array | undefined;
}

const EMPTY: InputStack = { available: 'yes', hasSig: false, malleable: false, nonCanon: false, size: 0, stack: [] };
const element = (data: Uint8Array): InputStack => ({ ...EMPTY, size: data.length + 1, stack: [data] });

function withAvailability(s: InputStack, available: Availability): InputStack {
  if (available !== 'no') return { ...s, available };
  return { available, hasSig: false, malleable: false, nonCanon: false, size: Infinity, stack: [] };
}

const INVALID = withAvailability(EMPTY, 'no');
const ZERO = element(new Uint8Array(0));
const ONE = element(Uint8Array.of(1));
const ZERO32 = { ...element(new Uint8Array(32)), malleable: true };
const withSig = (s: InputStack): InputStack => ({ ...s, hasSig: true });
const nonCanon = (s: InputStack): InputStack => ({ ...s, nonCanon: true });
const malleable = (s: InputStack, value = true): InputStack => ({ ...s, malleable: value });

function cat(a: InputStack, b: InputStack): InputStack {
  const joined: InputStack = {
    available: a.available,
    hasSig: a.hasSig || b.hasSig,
    malleable: a.malleable || b.malleable,
    nonCanon: a.nonCanon || b.nonCanon,
    size: a.available !== 'no' && b.available !== 'no' ? a.size + b.size : a.size,
    stack: [...a.stack, ...b.stack],
  };
  if (a.available === 'no' || b.available === 'no') return withAvailability(joined, 'no');
  if (a.available === 'maybe' || b.available === 'maybe') return withAvailability(joined, 'maybe');
  return joined;
}

function choose(a: InputStack, b: InputStack): InputStack {
  if (a.available === 'no') return b;
  if (b.available === 'no') return a;
  if (!a.hasSig && b.hasSig) return a;
  if (!b.hasSig && a.hasSig) return b;
  if (!a.hasSig && !b.hasSig) {
    // Without a signature on either side, a third party may swap one for the other.
    a = malleable(a);
    b = malleable(b);
  } else {
    if (b.malleable && !a.malleable) return a;
    if (a.malleable && !b.malleable) return b;
  }
  if (a.available === 'yes' && b.available === 'yes') return a.size <= b.size ? a : b;
  if (a.available === 'maybe' && b.available === 'maybe') return a.size >= b.size ? a : b;
  return a.available === 'yes' ? a : b;
}

const either = (...options: InputStack[]) => options.reduce(choose);

function signature(ctx: SatisfierContext, key: number): InputStack {
  const sig = ctx.sign(key);
  return withAvailability(withSig(element(sig ?? new Uint8Array(0))), sig ? 'yes' : 'no');
}

/** sats[j]: the best stack satisfying j of the items so far (Core's dynamic programme for multi and thresh). */
function countingSatisfactions(start: InputStack, items: readonly { sat: InputStack; nsat: InputStack }[]): InputStack[] {
  let sats = [start];
  for (const item of items) {
    const next = [cat(sats[0]!, item.nsat)];
    for (let j = 1; j < sats.length; j++) next.push(choose(cat(sats[j]!, item.nsat), cat(sats[j - 1]!, item.sat)));
    next.push(cat(sats[sats.length - 1]!, item.sat));
    sats = next;
  }
  return sats;
}

function produce(node: Node, ctx: SatisfierContext): InputResult {
  const sub = node.subs.map((s) => produce(s, ctx));
  const [x, y, z] = sub;
  switch (node.fragment) {
    case 'pk_k':
      return { nsat: ZERO, sat: signature(ctx, node.keys[0]!) };
    case 'pk_h': {
      const key = element(ctx.pkBytes(node.keys[0]!));
      const sig = ctx.sign(node.keys[0]!);
      return { nsat: cat(ZERO, key), sat: withAvailability(cat(withSig(element(sig ?? new Uint8Array(0))), key), sig ? 'yes' : 'no') };
    }
    case 'multi': {
      // CHECKMULTISIG pops one element too many: every stack starts with a zero.
      const sats = countingSatisfactions(
        ZERO,
        node.keys.map((key) => ({ sat: signature(ctx, key), nsat: EMPTY })),
      );
      let nsat = ZERO;
      for (let i = 0; i < node.k; i++) nsat = cat(nsat, ZERO);
      return { nsat, sat: sats[node.k]! };
    }
    case 'multi_a': {
      const sats = countingSatisfactions(
        EMPTY,
        [...node.keys].reverse().map((key) => ({ sat: signature(ctx, key), nsat: ZERO })),
      );
      return { nsat: sats[0]!, sat: sats[node.k]! };
    }
    case 'thresh': {
      const sats = countingSatisfactions(EMPTY, [...sub].reverse());
      let nsat = INVALID;
      for (let i = 0; i < sats.length; i++) {
        const candidate = i !== 0 && i !== node.k ? nonCanon(malleable(sats[i]!)) : sats[i]!;
        if (i !== node.k) nsat = choose(nsat, candidate);
      }
      return { nsat, sat: sats[node.k]! };
    }
    case 'older':
      return { nsat: INVALID, sat: ctx.checkOlder(node.k) ? EMPTY : INVALID };
    case 'after':
      return { nsat: INVALID, sat: ctx.checkAfter(node.k) ? EMPTY : INVALID };
    case 'sha256':
    case 'ripemd160':
    case 'hash256':
    case 'hash160': {
      const preimage = ctx.preimage?.(node.fragment, node.data);
      return { nsat: ZERO32, sat: preimage ? element(preimage) : INVALID };
    }
    case 'and_v':
      return { nsat: nonCanon(cat(y!.nsat, x!.sat)), sat: cat(y!.sat, x!.sat) };
    case 'and_b':
      return {
        nsat: either(cat(y!.nsat, x!.nsat), nonCanon(malleable(cat(y!.sat, x!.nsat))), nonCanon(malleable(cat(y!.nsat, x!.sat)))),
        sat: cat(y!.sat, x!.sat),
      };
    case 'or_b':
      return { nsat: cat(y!.nsat, x!.nsat), sat: either(cat(y!.nsat, x!.sat), cat(y!.sat, x!.nsat), nonCanon(malleable(cat(y!.sat, x!.sat)))) };
    case 'or_c':
      return { nsat: INVALID, sat: choose(x!.sat, cat(y!.sat, x!.nsat)) };
    case 'or_d':
      return { nsat: cat(y!.nsat, x!.nsat), sat: choose(x!.sat, cat(y!.sat, x!.nsat)) };
    case 'or_i':
      return { nsat: choose(cat(x!.nsat, ONE), cat(y!.nsat, ZERO)), sat: choose(cat(x!.sat, ONE), cat(y!.sat, ZERO)) };
    case 'andor':
      return { nsat: choose(nonCanon(cat(y!.nsat, x!.sat)), cat(z!.nsat, x!.nsat)), sat: choose(cat(y!.sat, x!.sat), cat(z!.sat, x!.nsat)) };
    case 'a':
    case 's':
    case 'c':
    case 'n':
      return x!;
    case 'd':
      return { nsat: ZERO, sat: cat(x!.sat, ONE) };
    case 'j':
      return { nsat: malleable(ZERO, x!.nsat.available !== 'no' && !x!.nsat.hasSig), sat: x!.sat };
    case 'v':
      return { nsat: INVALID, sat: x!.sat };
    case '0':
      return { nsat: EMPTY, sat: INVALID };
    case '1':
      return { nsat: INVALID, sat: EMPTY };
  }
}

/**
 * Core's Node::Satisfy (non-malleable): the witness stack and its availability. A
 * satisfaction that is malleable or needs no signature is refused outright (no stack).
 */
export function satisfy(node: Node, ctx: SatisfierContext): { available: Availability; stack: readonly Uint8Array[] | null } {
  const { sat } = produce(node, ctx);
  if (sat.malleable || !sat.hasSig) return { available: 'no', stack: null };
  return { available: sat.available, stack: sat.stack };
}
