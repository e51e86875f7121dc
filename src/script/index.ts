/**
 * script: Bitcoin Script. Opcodes, script numbers, element parsing, the interpreter with
 * every verification flag Core has (legacy, P2SH, segwit v0, taproot and tapscript),
 * signature hashing (legacy, BIP143, BIP341/342), the signature backend interface,
 * sigop counting, standard templates, asm text and addresses.
 */
export * from './opcodes.js';
export * from './errors.js';
export * from './flags.js';
export * from './scriptnum.js';
export * from './parse.js';
export * from './der.js';
export * from './secp256k1.js';
export * from './script-notation.js';
