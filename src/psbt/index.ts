/**
 * psbt: Partially Signed Bitcoin Transactions as Core v31 handles them (BIP174 version 0
 * with BIP371 taproot and BIP373 MuSig2 fields): decoding with Core's error texts,
 * serialization in Core's byte order, combining and joining, signing and finalizing over
 * the shared ProduceSignature, and AnalyzePSBT.
 */
export * from './types.js';
export { decodeBase64Psbt, decodeRawPsbt } from './parse.js';
export { encodePsbt, serializePsbt, sortedControlBlocks, sortedEntries, sortedTapScripts, sortedXpubs } from './serialize.js';
export { combinePsbts, joinPsbts } from './combine.js';
export { DUMMY_PSBT_SIGNER, extractTransaction, finalizeAndExtract, finalizePsbt, inputSignedAndVerified, precomputePsbtData, signPsbtInput, type PsbtError, type PsbtSigner } from './sign.js';
export { analyzePsbt, type InputAnalysis, type PsbtAnalysis, type PsbtRole } from './analyze.js';
export { PsbtProvider } from './provider.js';
export { updatePsbtOutput, removeUnnecessaryTransactions } from './update.js';
export { addDescriptor } from './descriptor-provider.js';
