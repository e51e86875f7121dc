/**
 * Core's EvalDescriptorStringOrObject filling a FlatSigningProvider for the PSBT methods:
 * each descriptor's keys (with origins), private keys and the scripts inside sh() and wsh().
 */
import { hash160 } from '../primitives/index.js';
import { PsbtProvider } from '../psbt/index.js';
import { ConstKey, OriginKey, ShDescriptor, WshDescriptor, type ChainName, type Descriptor, type KeyExpression, type KeyStore } from '../script/index.js';
import { RPC_INVALID_ADDRESS_OR_KEY, RpcError } from './errors.js';
import type { Json } from './json.js';
import { parseScanObject } from './scan-descriptors.js';

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
  const { text, parsed, begin, end } = parseScanObject(item, chain);
  for (const d of parsed.descriptors) {
    for (let pos = begin; pos <= end; pos++) {
      if (!d.expand(pos, parsed.keys)) throw new RpcError(RPC_INVALID_ADDRESS_OR_KEY, `Cannot derive script without private keys: '${text}'`);
      addDescriptor(provider, d, pos, parsed.keys);
    }
  }
}
