/**
 * importdescriptors as Core's answers it (ProcessDescriptorImport for each request, then one
 * rescan from the lowest timestamp): descriptors with their ranges, next index, timestamps
 * ("now" is the tip's median time past), labels for single addresses, internal and active
 * roles, private keys written (encrypted when the wallet is), and Core's per-request errors
 * and warnings.
 */
import { parseDescriptor } from '../script/index.js';
import { descriptorOutputType, type Wallet } from '../wallet/index.js';
import { RPC_INVALID_ADDRESS_OR_KEY, RPC_INVALID_PARAMETER, RPC_MISC_ERROR, RPC_TYPE_ERROR, RPC_WALLET_ERROR, RpcError } from './errors.js';
import { jsonTypeName, type Json, type JsonObject } from './json.js';
import { parseDescriptorRange } from './util-methods.js';
import { getBool, getInt, getStr, isJsonObject } from './value-parse.js';
import { ensureUnlocked, labelFromValue, RESCANNING, walletForRequest, type WalletHandlers, type WalletRpcDeps } from './wallet-request.js';

/** Core's GetImportTimestamp. */
function importTimestamp(request: JsonObject, now: number): number {
  if (!Object.hasOwn(request, 'timestamp')) throw new RpcError(RPC_TYPE_ERROR, 'Missing required timestamp field for key');
  const value = request.timestamp;
  if (typeof value === 'number') return getInt(value, Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER);
  if (value === 'now') return now;
  throw new RpcError(RPC_TYPE_ERROR, `Expected number or "now" timestamp value for key. got type ${jsonTypeName(value as Json)}`);
}

/** Core's ProcessDescriptorImport for one request: {success, warnings?, error?}. */
function importOne(wallet: Wallet, request: JsonObject, timestamp: number, keypool: number): JsonObject {
  const warnings: string[] = [];
  const result: JsonObject = {};
  try {
    if (!Object.hasOwn(request, 'desc')) throw new RpcError(RPC_INVALID_PARAMETER, 'Descriptor not found.');
    const text = getStr(request.desc);
    const has = (key: string) => Object.hasOwn(request, key) && request[key] !== null;
    const active = has('active') ? getBool(request.active) : false;
    const label = has('label') ? labelFromValue(getStr(request.label)) : undefined;
    let parsed;
    try {
      parsed = parseDescriptor(text, wallet.chainName, { requireChecksum: true });
    } catch (err) {
      throw new RpcError(RPC_INVALID_ADDRESS_OR_KEY, (err as Error).message);
    }
    const descriptors = parsed.descriptors;
    let internal: boolean | undefined;
    if (has('internal')) {
      if (descriptors.length > 1) throw new RpcError(RPC_INVALID_PARAMETER, "Cannot have multipath descriptor while also specifying 'internal'");
      internal = getBool(request.internal);
    }
    const first = descriptors[0]!;
    let rangeStart = 0;
    let rangeEnd = 1;
    let nextIndex = 0;
    if (!first.isRange() && has('range')) throw new RpcError(RPC_INVALID_PARAMETER, 'Range should not be specified for an un-ranged descriptor');
    if (first.isRange()) {
      if (has('range')) {
        const [begin, end] = parseDescriptorRange(request.range as Json);
        rangeStart = begin;
        rangeEnd = end + 1;
      } else {
        warnings.push('Range not given, using default keypool range');
        rangeEnd = keypool;
      }
      nextIndex = rangeStart;
      if (has('next_index')) {
        nextIndex = getInt(request.next_index as Json, Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER);
        if (nextIndex < rangeStart || nextIndex >= rangeEnd) throw new RpcError(RPC_INVALID_PARAMETER, 'next_index is out of range');
      }
    }
    if (active && !first.isRange()) throw new RpcError(RPC_INVALID_PARAMETER, 'Active descriptors must be ranged');
    if (descriptors.length > 1 && has('label')) throw new RpcError(RPC_INVALID_PARAMETER, 'Multipath descriptors should not have a label');
    if (has('range') && has('label')) throw new RpcError(RPC_INVALID_PARAMETER, 'Ranged descriptors should not have a label');
    if (internal === true && has('label')) throw new RpcError(RPC_INVALID_PARAMETER, 'Internal addresses should not have a label');
    if (active && first.name === 'combo') throw new RpcError(RPC_WALLET_ERROR, 'Combo descriptors cannot be set to active');
    const keys = parsed.keys.all();
    if (wallet.privateKeysDisabled && keys.length > 0) throw new RpcError(RPC_WALLET_ERROR, 'Cannot import private keys to a wallet with private keys disabled');
    descriptors.forEach((descriptor, j) => {
      const descInternal = descriptors.length === 2 ? j === 1 : internal === true;
      if (!descriptor.expand(0, parsed.keys)) throw new RpcError(RPC_WALLET_ERROR, 'Cannot expand descriptor. Probably because of hardened derivations without private keys provided');
      if (!wallet.privateKeysDisabled) {
        if (keys.length === 0) throw new RpcError(RPC_WALLET_ERROR, 'Cannot import descriptor without private keys to a wallet with private keys enabled');
        const priv = descriptor.toPrivateString(parsed.keys);
        if (!priv.hasPrivate || descriptor.toNormalizedString(parsed.keys) === null) warnings.push('Not all private keys provided. Some wallet functionality may return unexpected errors');
      }
      const outputType = descriptorOutputType(descriptor);
      const error = wallet.importDescriptor({
        text: descriptor.toString(),
        keys,
        creationTime: timestamp,
        rangeStart,
        rangeEnd,
        nextIndex,
        isRange: descriptor.isRange(),
        label,
        internal: descInternal,
        active,
        outputType,
      });
      if (error) throw new RpcError(RPC_WALLET_ERROR, `Could not add descriptor '${text}': ${error}`);
      if (active && !outputType) warnings.push('Unknown output type, cannot set descriptor to active.');
    });
    result.success = true;
  } catch (err) {
    if (!(err instanceof RpcError)) throw err;
    result.success = false;
    result.error = { code: err.code, message: err.message };
  }
  if (warnings.length > 0) result.warnings = warnings;
  return result;
}

export function walletImportHandlers(deps: WalletRpcDeps): WalletHandlers {
  return {
    importdescriptors: async (args, ctx) => {
      const wallet = walletForRequest(deps, ctx);
      const requests = args.array('requests');
      if (wallet.isScanning) throw new RpcError(RPC_WALLET_ERROR, RESCANNING);
      ensureUnlocked(wallet);
      const tip = wallet.lastProcessed.height;
      const times = wallet.chain.blockTimes(tip);
      const now = times.medianTimePast ?? times.time;
      let lowest = times.time;
      let rescan = false;
      const response: JsonObject[] = [];
      for (const request of requests) {
        if (!isJsonObject(request)) throw new RpcError(RPC_TYPE_ERROR, `JSON value of type ${jsonTypeName(request)} is not of expected type object`);
        const timestamp = Math.max(importTimestamp(request, now), 1);
        const result = importOne(wallet, request, timestamp, deps.keypool);
        response.push(result);
        if (timestamp < lowest) lowest = timestamp;
        if (result.success === true) rescan = true;
      }
      if (rescan) {
        const { aborted } = await wallet.rescanFromTime(lowest);
        await wallet.resubmitWalletTransactions(deps.spendSettings.maxTxFee, false, true);
        if (aborted) throw new RpcError(RPC_MISC_ERROR, 'Rescan aborted by user.');
      }
      return response;
    },
  };
}
