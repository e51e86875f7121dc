/**
 * Core's EvalDescriptorStringOrObject filling a FlatSigningProvider for the PSBT methods:
 * each descriptor's keys (with origins), private keys and the scripts inside sh() and wsh().
 */
import { hash160 } from '../primitives/index.js';
import { PsbtProvider } from '../psbt/index.js';
import { ConstKey, DescriptorError, OriginKey, parseDescriptor, ShDescriptor, WshDescriptor, type ChainName, type Descriptor, type KeyExpression, type KeyStore } from '../script/index.js';
import { RPC_INVALID_ADDRESS_OR_KEY, RPC_INVALID_PARAMETER, RpcError } from './errors.js';
import type { Json } from './json.js';
import { DEFAULT_SCAN_RANGE } from './scan-descriptors.js';
import { parseDescriptorRange, rethrowDescriptorError } from './util-methods.js';
import { getStr, isJsonObject } from './value-parse.js';

/** The origin Core's provider reports for a key: a literal key is its own master (no path). */
function keyOrigin(key: KeyExpression, pubkey: Uint8Array): { fingerprint: Uint8Array; path: readonly number[] } | undefined {
  if (key instanceof ConstKey) return { fingerprint: hash160(pubkey).slice(0, 4), path: [] };
  if (key instanceof OriginKey && key.inner instanceof ConstKey) return { fingerprint: key.fingerprint, path: key.path };
  return undefined;
}

function addDescriptor(provider: PsbtProvider, d: Descriptor, pos: number, keys: KeyStore): void {
  for (const key of d.keyArgs) {
    const pubkey = key.derive(pos, keys);
    if (!pubkey) continue;
    const origin = keyOrigin(key, pubkey);
    if (origin) provider.addPubkey(pubkey, origin);
    const secret = keys.get(pubkey);
    if (secret) provider.keys.addKey(secret.secret, secret.compressed);
  }
  for (const sub of d.subArgs) {
    if (d instanceof ShDescriptor || d instanceof WshDescriptor) {
      const script = sub.expand(pos, keys)?.[0];
      if (script) provider.keys.addScript(script);
    }
    addDescriptor(provider, sub, pos, keys);
  }
}

/** Adds one descriptor string or {desc, range} object to the provider, with Core's errors. */
export function addDescriptorObject(provider: PsbtProvider, item: Json, chain: ChainName): void {
  let text: string;
  let range = DEFAULT_SCAN_RANGE;
  if (typeof item === 'string') {
    text = item;
  } else if (isJsonObject(item)) {
    const desc = item.desc;
    if (desc === null || desc === undefined) throw new RpcError(RPC_INVALID_PARAMETER, 'Descriptor needs to be provided in scan object');
    text = getStr(desc);
    if (item.range !== null && item.range !== undefined) range = parseDescriptorRange(item.range);
  } else {
    throw new RpcError(RPC_INVALID_PARAMETER, 'Scan object needs to be either a string or an object');
  }
  let parsed;
  try {
    parsed = parseDescriptor(text, chain);
  } catch (err) {
    if (err instanceof DescriptorError) throw new RpcError(RPC_INVALID_ADDRESS_OR_KEY, err.message);
    return rethrowDescriptorError(err);
  }
  const [begin, end] = parsed.descriptors[0]!.isRange() ? range : [0, 0];
  for (const d of parsed.descriptors) {
    for (let pos = begin; pos <= end; pos++) {
      if (!d.expand(pos, parsed.keys)) throw new RpcError(RPC_INVALID_ADDRESS_OR_KEY, `Cannot derive script without private keys: '${text}'`);
      addDescriptor(provider, d, pos, parsed.keys);
    }
  }
}
