/**
 * Miniscript's fragments (Core's miniscript::Fragment), named as they are written. The
 * sugar forms (pk, pkh, and_n, t:, l:, u:) are not fragments: they parse to the nodes
 * they abbreviate (c:pk_k, c:pk_h, andor(X,Y,0), and_v(X,1), or_i(0,X), or_i(X,0)).
 */
export type Fragment =
  | '0'
  | '1'
  | 'pk_k'
  | 'pk_h'
  | 'older'
  | 'after'
  | 'sha256'
  | 'hash256'
  | 'ripemd160'
  | 'hash160'
  | 'a'
  | 's'
  | 'c'
  | 'd'
  | 'v'
  | 'j'
  | 'n'
  | 'and_v'
  | 'and_b'
  | 'or_b'
  | 'or_c'
  | 'or_d'
  | 'or_i'
  | 'andor'
  | 'thresh'
  | 'multi'
  | 'multi_a';

/** The wrappers, printed as a letter before a colon. */
export const WRAPPERS: ReadonlySet<Fragment> = new Set<Fragment>(['a', 's', 'c', 'd', 'v', 'j', 'n']);

/** Where the script runs: a P2WSH witness script or a Tapscript leaf. */
export type MiniscriptContext = 'p2wsh' | 'tapscript';

/** Steps both parsers' work stacks share (Core's ParseContext and DecodeContext): wrapping the last node built, */
export type WrapStep = 'SWAP' | 'ALT' | 'CHECK' | 'DUP_IF' | 'VERIFY' | 'NON_ZERO' | 'ZERO_NOTEQUAL';
/** and combining the last nodes built. */
export type CombineStep = 'AND_V' | 'AND_B' | 'ANDOR' | 'OR_B' | 'OR_C' | 'OR_D';
