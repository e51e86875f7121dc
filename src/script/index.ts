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
export * from './signature-cache.js';
export * from './secp256k1-native.js';
export * from './signature-backends.js';
export * from './script-notation.js';
export * from './limits.js';
export * from './sighash.js';
export * from './checker.js';
export * from './interpreter.js';
export * from './verify.js';
export * from './sigops.js';
export * from './tapleaf.js';
export * from './asm.js';
export * from './standard.js';
export * from './base58.js';
export * from './bech32.js';
export * from './bech32-errors.js';
export * from './chain-prefixes.js';
export * from './address.js';
export * from './wif.js';
export * from './base64.js';
export * from './message.js';
export * from './produce-signature.js';
export * from './transaction-signer.js';
export * from './key-tweaks.js';
export * from './taproot.js';
export * from './taproot-infer.js';
export * from './bip32.js';
export * from './descriptors/index.js';
