/**
 * The wallet's history by block and by address, as Core's RPCs answer: listsinceblock
 * (with the transactions of blocks a reorg detached), listreceivedbyaddress and
 * listreceivedbylabel (ListReceived over the address book), and rescanblockchain.
 */
import { decodeAddress, encodeAddress } from '../script/index.js';
import { hashToHex } from '../primitives/index.js';
import type { Wallet, WalletTx } from '../wallet/index.js';
import { RPC_INTERNAL_ERROR, RPC_INVALID_ADDRESS_OR_KEY, RPC_INVALID_PARAMETER, RPC_MISC_ERROR, RPC_WALLET_ERROR, RpcError } from './errors.js';
import type { Json, JsonObject } from './json.js';
import { amountJson, parseHash } from './values.js';
import { listTransactionEntries } from './wallet-coin-handlers.js';
import { labelFromValue, RESCANNING, walletForRequest, type WalletHandlers, type WalletRpcDeps } from './wallet-request.js';

/**
 * Core's order of destinations in its address book (a std::map of CTxDestination): by
 * variant (PKHash, ScriptHash, WitnessV0ScriptHash, WitnessV0KeyHash, WitnessV1Taproot,
 * PayToAnchor, WitnessUnknown), then by the hash's bytes.
 */
function destinationKey(script: Uint8Array): [number, Uint8Array] {
  if (script.length === 25 && script[0] === 0x76) return [2, script.subarray(3, 23)];
  if (script.length === 23 && script[0] === 0xa9) return [3, script.subarray(2, 22)];
  if (script.length === 34 && script[0] === 0x00) return [4, script.subarray(2)];
  if (script.length === 22 && script[0] === 0x00) return [5, script.subarray(2)];
  if (script.length === 34 && script[0] === 0x51) return [6, script.subarray(2)];
  if (script.length === 4 && script[0] === 0x51) return [7, script];
  return [8, script];
}

function compareDestinations(a: Uint8Array, b: Uint8Array): number {
  const [ta, ha] = destinationKey(a);
  const [tb, hb] = destinationKey(b);
  return ta !== tb ? ta - tb : Buffer.compare(ha, hb);
}

interface Tally {
  amount: bigint;
  confirmations: number;
  readonly txids: string[];
}

/** Core's ListReceived. */
function listReceived(wallet: Wallet, minDepth: number, includeEmpty: boolean, includeImmature: boolean, byLabel: boolean, filterAddress: string | undefined): JsonObject[] {
  const tally = new Map<string, Tally>();
  for (const wtx of wallet.txs.ordered()) {
    const depth = wallet.txs.depth(wtx);
    if (depth < minDepth) continue;
    if ((wtx.tx.isCoinbase() && depth < 1) || (wallet.txs.isImmatureCoinbase(wtx) && !includeImmature)) continue;
    for (const out of wtx.tx.outputs) {
      const address = encodeAddress(out.scriptPubKey, wallet.chainName);
      if (address === null || (filterAddress !== undefined && address !== filterAddress) || !wallet.isMine(out.scriptPubKey)) continue;
      let item = tally.get(address);
      if (!item) tally.set(address, (item = { amount: 0n, confirmations: Number.MAX_SAFE_INTEGER, txids: [] }));
      item.amount += out.value;
      item.confirmations = Math.min(item.confirmations, depth);
      item.txids.push(wtx.txid);
    }
  }
  const book = [...new Set([...wallet.stored.labels.keys(), ...wallet.stored.purposes.keys()])];
  const entries = filterAddress !== undefined ? book.filter((a) => a === filterAddress) : book;
  const scripts = new Map(entries.map((a) => [a, decodeAddress(a, wallet.chainName)] as const));
  entries.sort((a, b) => {
    const da = scripts.get(a)!;
    const db = scripts.get(b)!;
    return da.ok && db.ok ? compareDestinations(da.scriptPubKey, db.scriptPubKey) : 0;
  });
  const out: JsonObject[] = [];
  const labelTally = new Map<string, { amount: bigint; confirmations: number }>();
  for (const address of entries) {
    const label = wallet.stored.labels.get(address);
    // An entry without a label is change (Core's CAddressBookData::IsChange).
    if (label === undefined) continue;
    const item = tally.get(address);
    if (!item && !includeEmpty) continue;
    const amount = item?.amount ?? 0n;
    const confirmations = item?.confirmations ?? Number.MAX_SAFE_INTEGER;
    if (byLabel) {
      const sum = labelTally.get(label) ?? { amount: 0n, confirmations: Number.MAX_SAFE_INTEGER };
      sum.amount += amount;
      sum.confirmations = Math.min(sum.confirmations, confirmations);
      labelTally.set(label, sum);
      continue;
    }
    out.push({
      address,
      amount: amountJson(amount) as unknown as Json,
      confirmations: confirmations === Number.MAX_SAFE_INTEGER ? 0 : confirmations,
      label,
      txids: item?.txids ?? [],
    });
  }
  if (byLabel) {
    for (const [label, sum] of [...labelTally].sort(([a], [b]) => Buffer.compare(Buffer.from(a), Buffer.from(b)))) {
      out.push({ amount: amountJson(sum.amount) as unknown as Json, confirmations: sum.confirmations === Number.MAX_SAFE_INTEGER ? 0 : sum.confirmations, label });
    }
  }
  return out;
}

/** Core's GetAddressBalances: unspent value per address of our trusted, mature transactions. */
function addressBalances(wallet: Wallet): Map<string, bigint> {
  const balances = new Map<string, bigint>();
  const trustedParents = new Set<string>();
  for (const wtx of wallet.txs.all()) {
    if (!wallet.isTrusted(wtx, trustedParents) || wallet.txs.isImmatureCoinbase(wtx)) continue;
    if (wallet.txs.depth(wtx) < (wallet.isFromMe(wtx) ? 0 : 1)) continue;
    wtx.tx.outputs.forEach((out, vout) => {
      if (!wallet.isMine(out.scriptPubKey)) return;
      const address = encodeAddress(out.scriptPubKey, wallet.chainName);
      if (address === null) return;
      balances.set(address, (balances.get(address) ?? 0n) + (wallet.txs.isSpent(wtx.txid, vout) ? 0n : out.value));
    });
  }
  return balances;
}

/** Core's GetAddressGroupings: addresses spent together, with the change they got back, merged into groups. */
function addressGroupings(wallet: Wallet): Uint8Array[][] {
  const groupings: Uint8Array[][] = [];
  for (const wtx of wallet.txs.all()) {
    const inputs: Uint8Array[] = [];
    if (!wtx.tx.isCoinbase()) {
      for (const input of wtx.tx.inputs) {
        const out = wallet.txs.get(hashToHex(input.prevout.txid))?.tx.outputs[input.prevout.vout];
        if (out && wallet.isMine(out.scriptPubKey) && encodeAddress(out.scriptPubKey, wallet.chainName) !== null) inputs.push(out.scriptPubKey);
      }
      if (inputs.length > 0) {
        for (const out of wtx.tx.outputs) if (wallet.isChange(out.scriptPubKey) && encodeAddress(out.scriptPubKey, wallet.chainName) !== null) inputs.push(out.scriptPubKey);
        groupings.push(inputs);
      }
    }
    for (const out of wtx.tx.outputs) if (wallet.isMine(out.scriptPubKey) && encodeAddress(out.scriptPubKey, wallet.chainName) !== null) groupings.push([out.scriptPubKey]);
  }
  // Union of groups sharing an address.
  const groupOf = new Map<string, Set<string>>();
  const scripts = new Map<string, Uint8Array>();
  for (const grouping of groupings) {
    const merged = new Set<string>();
    for (const script of grouping) {
      const key = Buffer.from(script).toString('hex');
      scripts.set(key, script);
      const existing = groupOf.get(key);
      if (existing) for (const member of existing) merged.add(member);
      merged.add(key);
    }
    for (const member of merged) groupOf.set(member, merged);
  }
  const unique = [...new Set(groupOf.values())].map((group) => [...group].map((k) => scripts.get(k)!).sort(compareDestinations));
  // std::set of std::set: lexicographic order of the sorted groups.
  return unique.sort((a, b) => {
    for (let i = 0; i < Math.min(a.length, b.length); i++) {
      const c = compareDestinations(a[i]!, b[i]!);
      if (c !== 0) return c;
    }
    return a.length - b.length;
  });
}

export function walletHistoryHandlers(deps: WalletRpcDeps): WalletHandlers {
  return {
    listaddressgroupings: (_args, ctx) => {
      const wallet = walletForRequest(deps, ctx);
      const balances = addressBalances(wallet);
      return addressGroupings(wallet).map((group) =>
        group.map((script) => {
          const address = encodeAddress(script, wallet.chainName)!;
          const entry: Json[] = [address, amountJson(balances.get(address) ?? 0n) as unknown as Json];
          const label = wallet.addressBookLabel(address);
          if (label !== undefined) entry.push(label);
          return entry;
        }),
      );
    },

    listreceivedbyaddress: (args, ctx) => {
      const wallet = walletForRequest(deps, ctx);
      const filter = args.optString('address_filter');
      let filterAddress: string | undefined;
      if (filter !== undefined && filter !== '') {
        if (!decodeAddress(filter, wallet.chainName).ok) throw new RpcError(RPC_INVALID_ADDRESS_OR_KEY, 'address_filter parameter was invalid');
        filterAddress = filter;
      }
      return listReceived(wallet, args.int('minconf'), args.boolean('include_empty'), args.boolean('include_immature_coinbase'), false, filterAddress);
    },

    listreceivedbylabel: (args, ctx) => {
      const wallet = walletForRequest(deps, ctx);
      return listReceived(wallet, args.int('minconf'), args.boolean('include_empty'), args.boolean('include_immature_coinbase'), true, undefined);
    },

    listsinceblock: (args, ctx) => {
      const wallet = walletForRequest(deps, ctx);
      const chain = wallet.chain;
      const tipHeight = wallet.lastProcessed.height;
      let height: number | undefined;
      let altHeight: number | undefined;
      const hashText = args.optString('blockhash');
      let blockHash: Uint8Array | undefined;
      if (hashText !== undefined && hashText !== '') {
        blockHash = parseHash(hashText, 'blockhash');
        const info = chain.blockInfo(blockHash);
        if (!info) throw new RpcError(RPC_INVALID_ADDRESS_OR_KEY, 'Block not found');
        altHeight = info.height;
        // Core's findCommonAncestor with the wallet's last block: walk back to the active chain.
        let walk: typeof info | undefined = info;
        while (walk && !walk.active) walk = walk.prevHash ? chain.blockInfo(walk.prevHash) : undefined;
        height = walk ? Math.min(walk.height, tipHeight) : 0;
      }
      const targetArg = args.optInt('target_confirmations');
      let targetConfirms = targetArg ?? 1;
      if (targetConfirms < 1) throw new RpcError(RPC_INVALID_PARAMETER, 'Invalid parameter');
      const includeRemoved = args.optBoolean('include_removed') ?? true;
      const includeChange = args.optBoolean('include_change') ?? false;
      const labelText = args.optString('label');
      const filterLabel = labelText === undefined ? undefined : labelFromValue(labelText);
      const depth = height !== undefined ? tipHeight + 1 - height : -1;
      const transactions: JsonObject[] = [];
      for (const wtx of wallet.txs.ordered()) {
        if (depth === -1 || Math.abs(wallet.txs.depth(wtx)) < depth) transactions.push(...listTransactionEntries(wallet, wtx, 0, true, filterLabel, includeChange));
      }
      const removed: JsonObject[] = [];
      while (includeRemoved && altHeight !== undefined && height !== undefined && altHeight > height && blockHash) {
        const block = chain.blockByHash(blockHash);
        if (!block) throw new RpcError(RPC_INTERNAL_ERROR, "Can't read block from disk");
        for (const tx of block.transactions) {
          const wtx: WalletTx | undefined = wallet.txs.get(tx.txidHex);
          if (wtx) removed.push(...listTransactionEntries(wallet, wtx, -100_000_000, true, filterLabel, includeChange));
        }
        blockHash = block.header.prevHash;
        altHeight--;
      }
      targetConfirms = Math.min(targetConfirms, tipHeight + 1);
      const lastBlock = chain.hashAt(tipHeight + 1 - targetConfirms);
      const result: JsonObject = { transactions };
      if (includeRemoved) result.removed = removed;
      result.lastblock = lastBlock ? hashToHex(lastBlock) : '';
      return result;
    },

    rescanblockchain: async (args, ctx) => {
      const wallet = walletForRequest(deps, ctx);
      if (wallet.isScanning) throw new RpcError(RPC_WALLET_ERROR, RESCANNING);
      const tipHeight = wallet.lastProcessed.height;
      const start = args.optInt('start_height') ?? 0;
      if (start < 0 || start > tipHeight) throw new RpcError(RPC_INVALID_PARAMETER, 'Invalid start_height');
      const stopArg = args.optInt('stop_height');
      if (stopArg !== undefined) {
        if (stopArg < 0 || stopArg > tipHeight) throw new RpcError(RPC_INVALID_PARAMETER, 'Invalid stop_height');
        if (stopArg < start) throw new RpcError(RPC_INVALID_PARAMETER, 'stop_height must be greater than start_height');
      }
      const stop = stopArg ?? tipHeight;
      const { aborted, lastScanned } = await wallet.rescanBlocks(start, stop, true);
      if (aborted) throw new RpcError(RPC_MISC_ERROR, 'Rescan aborted.');
      // Without a stop height the scan reaches the tip and goes on into the mempool (Core's ScanForWalletTransactions).
      if (stopArg === undefined) wallet.scanMempool();
      return { start_height: start, stop_height: lastScanned ?? null };
    },
  };
}
