/**
 * Addresses, labels, descriptors and encryption of a loaded wallet, as Core's RPCs answer:
 * getnewaddress, getrawchangeaddress, setlabel, listlabels, getaddressesbylabel,
 * listdescriptors, keypoolrefill, encryptwallet, walletpassphrase, walletlock and
 * walletpassphrasechange.
 */
import { toHex } from '../primitives/index.js';
import { decodeAddress, decodeExtPubKey, encodeExtPrivKey, encodeExtPubKey, signMessage, type ExtPubKey } from '../script/index.js';
import { changeWalletPassphrase, DescriptorKeyError, encryptWalletFile, WalletEncryptionError, WalletError, walletProvider, type Wallet } from '../wallet/index.js';
import {
  RPC_INVALID_ADDRESS_OR_KEY,
  RPC_INVALID_PARAMETER,
  RPC_TYPE_ERROR,
  RPC_WALLET_ENCRYPTION_FAILED,
  RPC_WALLET_ERROR,
  RPC_WALLET_INVALID_LABEL_NAME,
  RPC_WALLET_KEYPOOL_RAN_OUT,
  RPC_WALLET_PASSPHRASE_INCORRECT,
  RPC_WALLET_WRONG_ENC_STATE,
  RpcError,
} from './errors.js';
import type { JsonObject } from './json.js';
import { addressInfo } from './wallet-address-info.js';
import { ensureUnlocked, labelFromValue, parseOutputType, walletForRequest, type WalletHandlers, type WalletRpcDeps } from './wallet-request.js';

/** Core caps walletpassphrase's timeout at 100,000,000 seconds. */
const MAX_SLEEP_TIME = 100_000_000;

const text = (s: string): Uint8Array => new TextEncoder().encode(s);

function ensurePrivateKeys(wallet: Wallet): void {
  if (wallet.privateKeysDisabled) throw new RpcError(RPC_WALLET_ERROR, 'Error: Private keys are disabled for this wallet');
}


function addressError(err: unknown): never {
  if (err instanceof WalletError && err.kind === 'NO_DESCRIPTOR') throw new RpcError(RPC_WALLET_ERROR, err.message);
  if (err instanceof DescriptorKeyError) throw new RpcError(RPC_WALLET_KEYPOOL_RAN_OUT, err.message);
  throw err;
}

export function walletKeyHandlers(deps: WalletRpcDeps): WalletHandlers {
  return {
    getnewaddress: (args, ctx) => {
      const wallet = walletForRequest(deps, ctx);
      const label = labelFromValue(args.string('label'));
      const typeText = args.optString('address_type');
      const type = typeText === undefined ? deps.spendSettings.addressType : parseOutputType(typeText);
      if (wallet.privateKeysDisabled && wallet.spkms.size === 0) throw new RpcError(RPC_WALLET_ERROR, 'Error: This wallet has no available keys');
      try {
        return wallet.newAddress(type, label);
      } catch (err) {
        addressError(err);
      }
    },

    getrawchangeaddress: (args, ctx) => {
      const wallet = walletForRequest(deps, ctx);
      const typeText = args.optString('address_type');
      const type = typeText === undefined ? (deps.spendSettings.changeType ?? deps.spendSettings.addressType) : parseOutputType(typeText);
      if (wallet.privateKeysDisabled && wallet.spkms.size === 0) throw new RpcError(RPC_WALLET_ERROR, 'Error: This wallet has no available keys');
      try {
        return wallet.newChangeAddress(type);
      } catch (err) {
        addressError(err);
      }
    },

    setlabel: (args, ctx) => {
      const wallet = walletForRequest(deps, ctx);
      const address = args.string('address');
      const decoded = decodeAddress(address, wallet.chainName);
      if (!decoded.ok) throw new RpcError(RPC_INVALID_ADDRESS_OR_KEY, 'Invalid Bitcoin address');
      const label = labelFromValue(args.string('label'));
      wallet.setAddressBook(address, label, wallet.isMine(decoded.scriptPubKey) ? 'receive' : 'send');
      return null;
    },

    listlabels: (args, ctx) => {
      const wallet = walletForRequest(deps, ctx);
      const purpose = args.optString('purpose') ?? '';
      const labels = new Set<string>();
      for (const [address, label] of wallet.stored.labels) {
        if (purpose !== '' && wallet.stored.purposes.get(address) !== purpose) continue;
        labels.add(label);
      }
      // Core collects them in a std::set: sorted bytewise.
      return [...labels].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
    },

    getaddressesbylabel: (args, ctx) => {
      const wallet = walletForRequest(deps, ctx);
      const label = labelFromValue(args.string('label'));
      const out: JsonObject = {};
      // Core walks its address book (a std::map of destinations): sorted by the destination, which for one type is the address bytes.
      const addresses = [...wallet.stored.labels].filter(([, l]) => l === label).map(([a]) => a);
      for (const address of addresses) out[address] = { purpose: wallet.stored.purposes.get(address) ?? 'unknown' };
      if (addresses.length === 0) throw new RpcError(RPC_WALLET_INVALID_LABEL_NAME, `No addresses with label ${label}`);
      return out;
    },

    listdescriptors: (args, ctx) => {
      const wallet = walletForRequest(deps, ctx);
      const withPrivate = args.boolean('private');
      if (withPrivate) {
        ensurePrivateKeys(wallet);
        ensureUnlocked(wallet);
      }
      const entries = [];
      for (const spkm of wallet.spkms.values()) {
        const entry = spkm.listEntry(withPrivate, wallet.isActive(spkm));
        if (entry === null) {
          if (withPrivate) throw new RpcError(RPC_WALLET_ERROR, "Can't get descriptor string.");
          continue;
        }
        entries.push(entry);
      }
      entries.sort((a, b) => (a.desc < b.desc ? -1 : a.desc > b.desc ? 1 : 0));
      return { wallet_name: wallet.name, descriptors: entries as unknown as JsonObject[] };
    },

    keypoolrefill: (args, ctx) => {
      const wallet = walletForRequest(deps, ctx);
      if (wallet.privateKeysDisabled) throw new RpcError(RPC_WALLET_ERROR, 'Error: Private keys are disabled for this wallet');
      const size = args.optInt('newsize') ?? deps.keypool;
      if (size < 0) throw new RpcError(RPC_INVALID_PARAMETER, 'Invalid parameter, expected valid size.');
      ensureUnlocked(wallet);
      try {
        wallet.refillKeypool(size);
      } catch (err) {
        if (err instanceof DescriptorKeyError) throw new RpcError(RPC_WALLET_ERROR, 'Error refreshing keypool.');
        throw err;
      }
      return null;
    },

    encryptwallet: (args, ctx) => {
      const wallet = walletForRequest(deps, ctx);
      if (wallet.privateKeysDisabled) throw new RpcError(RPC_WALLET_ENCRYPTION_FAILED, 'Error: wallet does not contain private keys, nothing to encrypt.');
      if (wallet.isEncrypted) throw new RpcError(RPC_WALLET_WRONG_ENC_STATE, 'Error: running with an encrypted wallet, but encryptwallet was called.');
      const passphrase = args.string('passphrase');
      if (passphrase === '') throw new RpcError(RPC_INVALID_PARAMETER, 'passphrase cannot be empty');
      try {
        encryptWalletFile(wallet.db, text(passphrase), { chain: wallet.chainName, creationTime: wallet.chain.now(), keypool: wallet.keypool });
      } catch (err) {
        if (err instanceof WalletEncryptionError) throw new RpcError(RPC_WALLET_ENCRYPTION_FAILED, 'Error: Failed to encrypt the wallet.');
        throw err;
      }
      wallet.reloadKeys();
      return 'wallet encrypted; The keypool has been flushed and a new HD seed was generated. You need to make a new backup with the backupwallet RPC.';
    },

    walletpassphrase: (args, ctx) => {
      const wallet = walletForRequest(deps, ctx);
      if (!wallet.isEncrypted) throw new RpcError(RPC_WALLET_WRONG_ENC_STATE, 'Error: running with an unencrypted wallet, but walletpassphrase was called.');
      const passphrase = args.string('passphrase');
      let timeout = args.int('timeout');
      if (timeout < 0) throw new RpcError(RPC_INVALID_PARAMETER, 'Timeout cannot be negative.');
      if (timeout > MAX_SLEEP_TIME) timeout = MAX_SLEEP_TIME;
      if (passphrase === '') throw new RpcError(RPC_INVALID_PARAMETER, 'passphrase cannot be empty');
      if (!wallet.unlock(text(passphrase), timeout)) {
        throw new RpcError(RPC_WALLET_PASSPHRASE_INCORRECT, 'Error: The wallet passphrase entered was incorrect.');
      }
      return null;
    },

    signmessage: (args, ctx) => {
      const wallet = walletForRequest(deps, ctx);
      ensureUnlocked(wallet);
      const address = args.string('address');
      const decoded = decodeAddress(address, wallet.chainName);
      if (!decoded.ok) throw new RpcError(RPC_TYPE_ERROR, 'Invalid address');
      const script = decoded.scriptPubKey;
      if (!(script.length === 25 && script[0] === 0x76)) throw new RpcError(RPC_TYPE_ERROR, 'Address does not refer to key');
      const key = walletProvider(wallet, [script]).keys.key(toHex(script.subarray(3, 23)));
      if (!key) throw new RpcError(RPC_WALLET_ERROR, 'Private key not available');
      return signMessage(key.secret, key.compressed, args.string('message'));
    },

    getaddressinfo: (args, ctx) => addressInfo(walletForRequest(deps, ctx), args.string('address')),

    gethdkeys: (args, ctx) => {
      const wallet = walletForRequest(deps, ctx);
      const options = args.optObject('options') ?? {};
      const activeOnly = options.active_only === true;
      const withPrivate = options.private === true;
      if (withPrivate) ensureUnlocked(wallet);
      // Core's map<CExtPubKey, set<(desc, active, has_priv)>>: one entry per root xpub.
      const byXpub = new Map<string, { root: ExtPubKey; secret: Uint8Array | undefined; descriptors: { desc: string; active: boolean; hasPrivate: boolean }[] }>();
      for (const spkm of wallet.spkms.values()) {
        const active = wallet.isActive(spkm) !== undefined;
        if (activeOnly && !active) continue;
        const desc = spkm.descriptorString(false);
        if (desc === null) continue;
        for (const root of spkm.hdRoots()) {
          const key = encodeExtPubKey(root, wallet.chainName);
          let entry = byXpub.get(key);
          if (!entry) byXpub.set(key, (entry = { root, secret: undefined, descriptors: [] }));
          const secret = spkm.keys.get(root.publicKey)?.secret;
          if (secret) entry.secret = secret;
          // Core's HasPrivKey counts an encrypted key too (a locked wallet still has it).
          const pubkeyHex = toHex(root.publicKey);
          const hasPrivate = secret !== undefined || spkm.stored.keys.has(pubkeyHex) || spkm.stored.cryptedKeys.has(pubkeyHex);
          entry.descriptors.push({ desc, active, hasPrivate });
        }
      }
      const entries = [...byXpub.entries()].sort(([, a], [, b]) => Buffer.compare(Buffer.from(a.root.publicKey), Buffer.from(b.root.publicKey)) || Buffer.compare(Buffer.from(a.root.chainCode), Buffer.from(b.root.chainCode)));
      return entries.map(([xpub, entry]) => {
        const descriptors = entry.descriptors.sort((a, b) => (a.desc < b.desc ? -1 : a.desc > b.desc ? 1 : Number(a.active) - Number(b.active)));
        const out: JsonObject = { xpub, has_private: descriptors.some((d) => d.hasPrivate) };
        if (withPrivate) {
          if (!entry.secret) throw new RpcError(RPC_WALLET_ERROR, 'Private key not available');
          out.xprv = encodeExtPrivKey({ ...entry.root, privateKey: entry.secret }, wallet.chainName);
        }
        out.descriptors = descriptors.map((d) => ({ desc: d.desc, active: d.active }));
        return out;
      });
    },

    createwalletdescriptor: (args, ctx) => {
      const wallet = walletForRequest(deps, ctx);
      const type = parseOutputType(args.string('type'));
      const options = args.optObject('options') ?? {};
      const internals = options.internal === undefined || options.internal === null ? [false, true] : [options.internal === true];
      ensureUnlocked(wallet);
      let root: ExtPubKey;
      if (options.hdkey === undefined || options.hdkey === null) {
        const roots = wallet.activeHdRoots();
        if (roots.length !== 1) throw new RpcError(RPC_INVALID_ADDRESS_OR_KEY, "Unable to determine which HD key to use from active descriptors. Please specify with 'hdkey'");
        root = roots[0]!;
      } else {
        const decoded = decodeExtPubKey(String(options.hdkey), wallet.chainName);
        if (!decoded) throw new RpcError(RPC_INVALID_ADDRESS_OR_KEY, 'Unable to parse HD key. Please provide a valid xpub');
        root = decoded;
      }
      const made: string[] = [];
      for (const internal of internals) {
        const result = wallet.createDescriptor(root, type, internal);
        if (result === 'no-key') throw new RpcError(RPC_WALLET_ERROR, `Private key for ${encodeExtPubKey(root, wallet.chainName)} is not known`);
        if (result !== 'exists') made.push(result);
      }
      if (made.length === 0) throw new RpcError(RPC_WALLET_ERROR, 'Descriptor already exists');
      return { descs: made };
    },

    walletlock: (_args, ctx) => {
      const wallet = walletForRequest(deps, ctx);
      if (!wallet.isEncrypted) throw new RpcError(RPC_WALLET_WRONG_ENC_STATE, 'Error: running with an unencrypted wallet, but walletlock was called.');
      wallet.lock();
      return null;
    },

    walletpassphrasechange: (args, ctx) => {
      const wallet = walletForRequest(deps, ctx);
      if (!wallet.isEncrypted) throw new RpcError(RPC_WALLET_WRONG_ENC_STATE, 'Error: running with an unencrypted wallet, but walletpassphrasechange was called.');
      const oldPassphrase = args.string('oldpassphrase');
      const newPassphrase = args.string('newpassphrase');
      if (oldPassphrase === '' || newPassphrase === '') throw new RpcError(RPC_INVALID_PARAMETER, 'passphrase cannot be empty');
      if (!changeWalletPassphrase(wallet.db, text(oldPassphrase), text(newPassphrase))) {
        throw new RpcError(RPC_WALLET_PASSPHRASE_INCORRECT, 'Error: The wallet passphrase entered was incorrect.');
      }
      wallet.reloadKeys();
      return null;
    },
  };
}
