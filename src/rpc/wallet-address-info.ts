/**
 * getaddressinfo as Core's answers it: the address and script, whether the wallet owns and
 * can solve it with the descriptor that gives it (desc, parent_desc), Core's DescribeAddress
 * details (script kind, witness program, the key, the embedded P2SH-wrapped script), change,
 * the descriptor's timestamp and HD key path, and the address book label.
 */
import { toHex } from '../primitives/index.js';
import { decodeAddress, encodeAddress, witnessVersion, type KeyOriginInfo } from '../script/index.js';
import { walletProvider, type Wallet } from '../wallet/index.js';
import { RPC_INVALID_ADDRESS_OR_KEY, RpcError } from './errors.js';
import type { JsonObject } from './json.js';
import { scanDescriptorFor } from './scan-descriptors.js';

const HARDENED = 0x80000000;

/** Core's WriteHDKeypath for descriptor wallets (h for hardened steps). */
function hdKeyPath(path: readonly number[]): string {
  return ['m', ...path.map((step) => (step >= HARDENED ? `${step - HARDENED}h` : String(step)))].join('/');
}

type Provider = ReturnType<typeof walletProvider>;

/** Core's DescribeAddress (DescribeWalletAddressVisitor) for a script, into `out`. */
function describe(wallet: Wallet, script: Uint8Array, provider: Provider, out: JsonObject): void {
  const keyOf = (hash: Uint8Array): Uint8Array | undefined => provider.pubkeys.get(toHex(hash));
  if (script.length === 25 && script[0] === 0x76) {
    out.isscript = false;
    out.iswitness = false;
    const key = keyOf(script.subarray(3, 23));
    if (key) {
      out.pubkey = toHex(key);
      out.iscompressed = key.length === 33;
    }
  } else if (script.length === 23 && script[0] === 0xa9) {
    out.isscript = true;
    out.iswitness = false;
    const redeem = provider.script(script.subarray(2, 22));
    if (redeem) {
      out.script = redeem.length === 22 && redeem[0] === 0x00 ? 'witness_v0_keyhash' : redeem.length === 34 && redeem[0] === 0x00 ? 'witness_v0_scripthash' : 'nonstandard';
      out.hex = toHex(redeem);
      const embedded: JsonObject = {};
      describe(wallet, redeem, provider, embedded);
      if (embedded.pubkey !== undefined) out.pubkey = embedded.pubkey;
      const address = encodeAddress(redeem, wallet.chainName);
      if (address !== null) embedded.address = address;
      embedded.scriptPubKey = toHex(redeem);
      out.embedded = embedded;
    }
  } else if (script.length === 22 && script[0] === 0x00) {
    out.isscript = false;
    out.iswitness = true;
    out.witness_version = 0;
    out.witness_program = toHex(script.subarray(2));
    const key = keyOf(script.subarray(2));
    if (key) out.pubkey = toHex(key);
  } else if (witnessVersion(script) >= 0) {
    out.isscript = true;
    out.iswitness = true;
    out.witness_version = witnessVersion(script);
    out.witness_program = toHex(script.subarray(2));
  } else {
    out.isscript = false;
    out.iswitness = false;
  }
}

/** The origin of the key an output of ours pays (Core's CKeyMetadata key_origin). */
function originOf(script: Uint8Array, provider: Provider): KeyOriginInfo | undefined {
  const byHash = (hash: Uint8Array) => provider.origins.get(toHex(hash));
  if (script.length === 25 && script[0] === 0x76) return byHash(script.subarray(3, 23));
  if (script.length === 22 && script[0] === 0x00) return byHash(script.subarray(2));
  if (script.length === 23 && script[0] === 0xa9) {
    const redeem = provider.script(script.subarray(2, 22));
    return redeem && redeem.length === 22 ? byHash(redeem.subarray(2)) : undefined;
  }
  if (script.length === 34 && script[0] === 0x51) {
    const spend = provider.spendData(script.subarray(2));
    return spend ? provider.originByXOnly(spend.internalKey) : undefined;
  }
  return undefined;
}

export function addressInfo(wallet: Wallet, address: string): JsonObject {
  const decoded = decodeAddress(address, wallet.chainName);
  if (!decoded.ok) throw new RpcError(RPC_INVALID_ADDRESS_OR_KEY, decoded.error || 'Invalid address');
  const script = decoded.scriptPubKey;
  const owner = wallet.ownerOf(script);
  const provider = walletProvider(wallet, [script]);
  const info: JsonObject = { address: encodeAddress(script, wallet.chainName) ?? address, scriptPubKey: toHex(script), ismine: owner !== undefined };
  const expansion = owner?.spkm.expansionAt(owner.index);
  info.solvable = expansion !== undefined && expansion !== null;
  if (owner && expansion) {
    info.desc = scanDescriptorFor(expansion.descriptor, owner.index, expansion.keys, wallet.chainName, script);
    const parent = owner.spkm.descriptorString(false);
    if (parent) info.parent_desc = parent;
  }
  info.iswatchonly = false;
  describe(wallet, script, provider, info);
  info.ischange = wallet.isChange(script);
  if (owner) {
    info.timestamp = Number(owner.spkm.record.creationTime);
    const origin = originOf(script, provider);
    if (origin) {
      info.hdkeypath = hdKeyPath(origin.path);
      info.hdseedid = '0'.repeat(40);
      info.hdmasterfingerprint = toHex(origin.fingerprint);
    }
  }
  const label = wallet.addressBookLabel(info.address as string);
  info.labels = label === undefined ? [] : [label];
  return info;
}
