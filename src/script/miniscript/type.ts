/**
 * Miniscript's type system (Core's miniscript::Type and ComputeType): every expression
 * has one basic type (B, V, K or W) and a set of properties, held here as bits. The
 * rules decide which compositions are valid and which are sane, so they follow Core's
 * formulas term for term.
 */
import type { Fragment } from './fragment.js';

export type Type = number;

const BITS: Record<string, number> = {
  B: 1 << 0,
  V: 1 << 1,
  K: 1 << 2,
  W: 1 << 3,
  z: 1 << 4,
  o: 1 << 5,
  n: 1 << 6,
  d: 1 << 7,
  u: 1 << 8,
  e: 1 << 9,
  f: 1 << 10,
  s: 1 << 11,
  m: 1 << 12,
  x: 1 << 13,
  g: 1 << 14,
  h: 1 << 15,
  i: 1 << 16,
  j: 1 << 17,
  k: 1 << 18,
};

/** Core's ""_mst literal: the type with the listed properties. */
export function mst(letters: string): Type {
  let t = 0;
  for (const c of letters) {
    const bit = BITS[c];
    if (bit === undefined) throw new Error(`unknown miniscript type property '${c}'`);
    t |= bit;
  }
  return t;
}

/** Core's `a << b`: a has every property of b. */
export function has(a: Type, b: Type): boolean {
  return (b & ~a) === 0;
}

/** Core's Type::If. */
function when(t: Type, condition: boolean): Type {
  return condition ? t : 0;
}

/** The letters of a type in Core's test notation order (for tests and messages). */
export function typeLetters(t: Type): string {
  return Object.entries(BITS)
    .filter(([, bit]) => (t & bit) !== 0)
    .map(([c]) => c)
    .join('');
}

const T = {
  B: mst('B'),
  V: mst('V'),
  K: mst('K'),
  W: mst('W'),
  z: mst('z'),
  o: mst('o'),
  n: mst('n'),
  d: mst('d'),
  u: mst('u'),
  e: mst('e'),
  f: mst('f'),
  s: mst('s'),
  m: mst('m'),
  x: mst('x'),
  g: mst('g'),
  h: mst('h'),
  i: mst('i'),
  j: mst('j'),
  k: mst('k'),
  ghij: mst('ghij'),
  ghijk: mst('ghijk'),
};

/** Core's SanitizeType: a type without exactly one basic type is no type at all. */
export function sanitizeType(e: Type): Type {
  const basics = [T.K, T.V, T.B, T.W].filter((b) => has(e, b)).length;
  if (basics === 0) return 0;
  if (basics !== 1) throw new Error('miniscript type with conflicting basic types');
  return e;
}

/** Whether two timelock sets mix heights and times of the same kind (k's condition). */
function mixesTimelocks(x: Type, y: Type): boolean {
  return (has(x, T.g) && has(y, T.h)) || (has(x, T.h) && has(y, T.g)) || (has(x, T.i) && has(y, T.j)) || (has(x, T.j) && has(y, T.i));
}

/** BIP68's type flag: a relative lock in units of 512 seconds. */
const SEQUENCE_LOCKTIME_TYPE_FLAG = 1 << 22;
/** nLockTime values from here on are times, below it heights. */
const LOCKTIME_THRESHOLD = 500000000;

/** Core's ComputeType for one node from its fragment, its children's types and its arguments. */
export function computeType(fragment: Fragment, subTypes: readonly Type[], k: number, tapscript: boolean): Type {
  const x = subTypes[0] ?? 0;
  const y = subTypes[1] ?? 0;
  const z = subTypes[2] ?? 0;
  switch (fragment) {
    case 'pk_k':
      return mst('Konudemsxk');
    case 'pk_h':
      return mst('Knudemsxk');
    case 'older':
      return when(T.g, (k & SEQUENCE_LOCKTIME_TYPE_FLAG) !== 0) | when(T.h, (k & SEQUENCE_LOCKTIME_TYPE_FLAG) === 0) | mst('Bzfmxk');
    case 'after':
      return when(T.i, k >= LOCKTIME_THRESHOLD) | when(T.j, k < LOCKTIME_THRESHOLD) | mst('Bzfmxk');
    case 'sha256':
    case 'ripemd160':
    case 'hash256':
    case 'hash160':
      return mst('Bonudmk');
    case '1':
      return mst('Bzufmxk');
    case '0':
      return mst('Bzudemsxk');
    case 'a':
      return when(T.W, has(x, T.B)) | (x & T.ghijk) | (x & mst('udfems')) | T.x;
    case 's':
      return when(T.W, has(x, mst('Bo'))) | (x & T.ghijk) | (x & mst('udfemsx'));
    case 'c':
      return when(T.B, has(x, T.K)) | (x & T.ghijk) | (x & mst('ondfem')) | mst('us');
    case 'd':
      // d: is u only under Tapscript, where MINIMALIF is consensus rather than policy.
      return when(T.B, has(x, mst('Vz'))) | when(T.o, has(x, T.z)) | when(T.e, has(x, T.f)) | (x & T.ghijk) | (x & mst('ms')) | when(T.u, tapscript) | mst('ndx');
    case 'v':
      return when(T.V, has(x, T.B)) | (x & T.ghijk) | (x & mst('zonms')) | mst('fx');
    case 'j':
      return when(T.B, has(x, mst('Bn'))) | when(T.e, has(x, T.f)) | (x & T.ghijk) | (x & mst('oums')) | mst('ndx');
    case 'n':
      return (x & T.ghijk) | (x & mst('Bzondfems')) | mst('ux');
    case 'and_v':
      return (
        when(y & mst('KVB'), has(x, T.V)) |
        (x & T.n) |
        when(y & T.n, has(x, T.z)) |
        when((x | y) & T.o, has(x | y, T.z)) |
        (x & y & mst('dmz')) |
        ((x | y) & T.s) |
        when(T.f, has(y, T.f) || has(x, T.s)) |
        (y & mst('ux')) |
        ((x | y) & T.ghij) |
        when(T.k, has(x & y, T.k) && !mixesTimelocks(x, y))
      );
    case 'and_b':
      return (
        when(x & T.B, has(y, T.W)) |
        when((x | y) & T.o, has(x | y, T.z)) |
        (x & T.n) |
        when(y & T.n, has(x, T.z)) |
        when(x & y & T.e, has(x & y, T.s)) |
        (x & y & mst('dzm')) |
        when(T.f, has(x & y, T.f) || has(x, mst('sf')) || has(y, mst('sf'))) |
        ((x | y) & T.s) |
        mst('ux') |
        ((x | y) & T.ghij) |
        when(T.k, has(x & y, T.k) && !mixesTimelocks(x, y))
      );
    case 'or_b':
      return (
        when(T.B, has(x, mst('Bd')) && has(y, mst('Wd'))) |
        when((x | y) & T.o, has(x | y, T.z)) |
        when(x & y & T.m, has(x | y, T.s) && has(x & y, T.e)) |
        (x & y & mst('zse')) |
        mst('dux') |
        ((x | y) & T.ghij) |
        (x & y & T.k)
      );
    case 'or_d':
      return (
        when(y & T.B, has(x, mst('Bdu'))) |
        when(x & T.o, has(y, T.z)) |
        when(x & y & T.m, has(x, T.e) && has(x | y, T.s)) |
        (x & y & mst('zs')) |
        (y & mst('ufde')) |
        T.x |
        ((x | y) & T.ghij) |
        (x & y & T.k)
      );
    case 'or_c':
      return (
        when(y & T.V, has(x, mst('Bdu'))) |
        when(x & T.o, has(y, T.z)) |
        when(x & y & T.m, has(x, T.e) && has(x | y, T.s)) |
        (x & y & mst('zs')) |
        mst('fx') |
        ((x | y) & T.ghij) |
        (x & y & T.k)
      );
    case 'or_i':
      return (
        (x & y & mst('VBKufs')) |
        when(T.o, has(x & y, T.z)) |
        when((x | y) & T.e, has(x | y, T.f)) |
        when(x & y & T.m, has(x | y, T.s)) |
        ((x | y) & T.d) |
        T.x |
        ((x | y) & T.ghij) |
        (x & y & T.k)
      );
    case 'andor':
      return (
        when(y & z & mst('BKV'), has(x, mst('Bdu'))) |
        (x & y & z & T.z) |
        when((x | (y & z)) & T.o, has(x | (y & z), T.z)) |
        (y & z & T.u) |
        when(z & T.f, has(x, T.s) || has(y, T.f)) |
        (z & T.d) |
        when(z & T.e, has(x, T.s) || has(y, T.f)) |
        when(x & y & z & T.m, has(x, T.e) && has(x | y | z, T.s)) |
        (z & (x | y) & T.s) |
        T.x |
        ((x | y | z) & T.ghij) |
        when(T.k, has(x & y & z, T.k) && !mixesTimelocks(x, y))
      );
    case 'multi':
      return mst('Bnudemsk');
    case 'multi_a':
      return mst('Budemsk');
    case 'thresh': {
      let allE = true;
      let allM = true;
      let args = 0;
      let numS = 0;
      let accTl = T.k;
      for (let i = 0; i < subTypes.length; i++) {
        const t = subTypes[i]!;
        if (!has(t, i ? mst('Wdu') : mst('Bdu'))) return 0;
        if (!has(t, T.e)) allE = false;
        if (!has(t, T.m)) allM = false;
        if (has(t, T.s)) numS += 1;
        args += has(t, T.z) ? 0 : has(t, T.o) ? 1 : 2;
        // A threshold above 1 may combine two children whose timelocks are of different kinds.
        accTl = ((accTl | t) & T.ghij) | when(T.k, has(accTl & t, T.k) && (k <= 1 || !mixesTimelocks(accTl, t)));
      }
      const n = subTypes.length;
      return (
        mst('Bdu') |
        when(T.z, args === 0) |
        when(T.o, args === 1) |
        when(T.e, allE && numS === n) |
        when(T.m, allE && allM && numS >= n - k) |
        when(T.s, numS >= n - k + 1) |
        accTl
      );
    }
  }
}
