/** Script verification flags, with Core's bit positions so flag sets can be compared with Core's. */
export const VerifyFlags = {
  NONE: 0,
  P2SH: 1 << 0,
  STRICTENC: 1 << 1,
  DERSIG: 1 << 2,
  LOW_S: 1 << 3,
  NULLDUMMY: 1 << 4,
  SIGPUSHONLY: 1 << 5,
  MINIMALDATA: 1 << 6,
  DISCOURAGE_UPGRADABLE_NOPS: 1 << 7,
  CLEANSTACK: 1 << 8,
  CHECKLOCKTIMEVERIFY: 1 << 9,
  CHECKSEQUENCEVERIFY: 1 << 10,
  WITNESS: 1 << 11,
  DISCOURAGE_UPGRADABLE_WITNESS_PROGRAM: 1 << 12,
  MINIMALIF: 1 << 13,
  NULLFAIL: 1 << 14,
  WITNESS_PUBKEYTYPE: 1 << 15,
  CONST_SCRIPTCODE: 1 << 16,
  TAPROOT: 1 << 17,
  DISCOURAGE_UPGRADABLE_TAPROOT_VERSION: 1 << 18,
  DISCOURAGE_OP_SUCCESS: 1 << 19,
  DISCOURAGE_UPGRADABLE_PUBKEYTYPE: 1 << 20,
} as const;

export type VerifyFlagName = Exclude<keyof typeof VerifyFlags, 'NONE'>;

export const ALL_FLAG_NAMES = Object.keys(VerifyFlags).filter((n) => n !== 'NONE') as VerifyFlagName[];

/** Every flag that consensus itself enforces somewhere in the chain's history. */
export const MANDATORY_SCRIPT_VERIFY_FLAGS =
  VerifyFlags.P2SH |
  VerifyFlags.DERSIG |
  VerifyFlags.NULLDUMMY |
  VerifyFlags.CHECKLOCKTIMEVERIFY |
  VerifyFlags.CHECKSEQUENCEVERIFY |
  VerifyFlags.WITNESS |
  VerifyFlags.TAPROOT;

/** Core's STANDARD_SCRIPT_VERIFY_FLAGS: what mempool policy adds on top of consensus. */
export const STANDARD_SCRIPT_VERIFY_FLAGS =
  MANDATORY_SCRIPT_VERIFY_FLAGS |
  VerifyFlags.STRICTENC |
  VerifyFlags.MINIMALDATA |
  VerifyFlags.DISCOURAGE_UPGRADABLE_NOPS |
  VerifyFlags.CLEANSTACK |
  VerifyFlags.MINIMALIF |
  VerifyFlags.NULLFAIL |
  VerifyFlags.LOW_S |
  VerifyFlags.DISCOURAGE_UPGRADABLE_WITNESS_PROGRAM |
  VerifyFlags.WITNESS_PUBKEYTYPE |
  VerifyFlags.CONST_SCRIPTCODE |
  VerifyFlags.DISCOURAGE_UPGRADABLE_TAPROOT_VERSION |
  VerifyFlags.DISCOURAGE_OP_SUCCESS |
  VerifyFlags.DISCOURAGE_UPGRADABLE_PUBKEYTYPE;

/** Parses "P2SH,WITNESS" (or "" / "NONE") into a bit set; unknown names throw. */
export function parseFlags(text: string): number {
  let flags = 0;
  for (const raw of text.split(',')) {
    const name = raw.trim();
    if (name === '' || name === 'NONE') continue;
    const bit = (VerifyFlags as Record<string, number>)[name];
    if (bit === undefined) throw new Error(`unknown script verification flag: ${name}`);
    flags |= bit;
  }
  return flags;
}

export function formatFlags(flags: number): string {
  return ALL_FLAG_NAMES.filter((n) => (flags & VerifyFlags[n]) !== 0).join(',');
}
