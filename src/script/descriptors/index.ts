/**
 * descriptors: Bitcoin Core's output script descriptors (BIP380-386, BIP389 multipath,
 * BIP390 musig()): parsing with Core's error texts, expansion to scripts, canonical
 * printing with checksums, inference from scripts, and the getdescriptorinfo and
 * deriveaddresses computations.
 */
export { addChecksum, checkChecksum, descriptorChecksum, getDescriptorChecksum, type CheckedDescriptor } from './checksum.js';
export { DescriptorError } from './errors.js';
export { KeyStore, type StoredKey } from './keystore.js';
export { Bip32Key, ConstKey, KeyExpression, MusigKey, OriginKey, type PrivateText } from './keys.js';
export {
  AddrDescriptor,
  ComboDescriptor,
  Descriptor,
  MultiADescriptor,
  MultisigDescriptor,
  PkDescriptor,
  PkhDescriptor,
  RawDescriptor,
  RawTrDescriptor,
  ShDescriptor,
  TrDescriptor,
  WpkhDescriptor,
  WshDescriptor,
  type StringKind,
} from './nodes.js';
export { MiniscriptDescriptor } from './miniscript-descriptor.js';
export { parseDescriptor, type ParsedDescriptor, type ParseOptions } from './parse.js';
export { expandDescriptor } from './expand.js';
export { inferDescriptor, inferScriptInContext, scriptPubKeyDescriptor, ScriptKnowledge, type InferContext, type ScriptFacts } from './infer.js';
export { aggregatePublicKeys, musigSyntheticXpub, MUSIG_CHAINCODE, sortPublicKeys } from './musig.js';
export { getDescriptorInfo, type DescriptorInfo } from './descriptor-info.js';
export { deriveAddresses, deriveDescriptorAddresses, validateDescriptorRange } from './derive-addresses.js';
export { isValidXOnlyKey, useNativeXOnlyCheck } from './xonly.js';
export { formatKeyPath } from './keypath.js';
export { payToScriptHashOf, payToWitnessScriptHashOf, pushInt } from './script-builders.js';
