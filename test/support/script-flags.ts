/** Flag-set helpers mirroring Core's test harness (FillFlags, TrimFlags, ExcludeIndividualFlags). */
import { ALL_FLAG_NAMES, VerifyFlags } from '../../src/script/index.js';

export const ALL_FLAGS = ALL_FLAG_NAMES.reduce((acc, name) => acc | VerifyFlags[name], 0);

/** Adds the flags a set depends on: CLEANSTACK needs WITNESS, WITNESS needs P2SH. */
export function fillFlags(flags: number): number {
  let f = flags;
  if (f & VerifyFlags.CLEANSTACK) f |= VerifyFlags.WITNESS;
  if (f & VerifyFlags.WITNESS) f |= VerifyFlags.P2SH;
  return f;
}

/** Removes flags whose dependencies are missing. */
export function trimFlags(flags: number): number {
  let f = flags;
  if (!(f & VerifyFlags.P2SH)) f &= ~VerifyFlags.WITNESS;
  if (!(f & VerifyFlags.WITNESS)) f &= ~VerifyFlags.CLEANSTACK;
  return f;
}

/** Every distinct set obtained by removing one flag (then trimming) from `flags`. */
export function excludeIndividualFlags(flags: number): number[] {
  const combos = new Set<number>();
  for (const name of ALL_FLAG_NAMES) {
    const without = trimFlags(flags & ~VerifyFlags[name]);
    if (without !== flags) combos.add(without);
  }
  return [...combos];
}

/** Core's AllConsensusFlags: every valid combination of the seven consensus flags. */
export function allConsensusFlagCombinations(): number[] {
  const bits = [
    VerifyFlags.P2SH,
    VerifyFlags.DERSIG,
    VerifyFlags.NULLDUMMY,
    VerifyFlags.CHECKLOCKTIMEVERIFY,
    VerifyFlags.CHECKSEQUENCEVERIFY,
    VerifyFlags.WITNESS,
    VerifyFlags.TAPROOT,
  ];
  const out: number[] = [];
  for (let i = 0; i < 128; i++) {
    let f = 0;
    bits.forEach((bit, j) => {
      if (i & (1 << j)) f |= bit;
    });
    if (f & VerifyFlags.WITNESS && !(f & VerifyFlags.P2SH)) continue;
    if (f & VerifyFlags.TAPROOT && !(f & VerifyFlags.WITNESS)) continue;
    out.push(f);
  }
  return out;
}
