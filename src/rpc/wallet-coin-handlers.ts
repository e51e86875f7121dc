/**
 * The wallet's coins and history as Core's RPCs show them: getbalances, getbalance
 * (GetBalance), listunspent (AvailableCoins), listtransactions and gettransaction
 * (ListTransactions, WalletTxToJSON, CachedTxGetAmounts), getreceivedbyaddress,
 * lockunspent/listlockunspent and abandontransaction.
 */
import { extractMatches, hashToHex, MerkleBlockReadError, parseMerkleBlock } from '../primitives/index.js';
import { decodeAddress, encodeAddress } from '../script/index.js';
import { WALLET_FLAG, type Wallet, type WalletTx } from '../wallet/index.js';
import { RPC_DESERIALIZATION_ERROR, RPC_INVALID_ADDRESS_OR_KEY, RPC_INVALID_PARAMETER, RPC_MISC_ERROR, RPC_WALLET_ERROR, RpcError } from './errors.js';
import type { Json, JsonObject } from './json.js';
import { amountFromValue, getInt, getObj, getStr, parseHexV, rpcTypeCheckObj } from './value-parse.js';
import { amountJson, parseHash } from './values.js';
import { decodeTxHex, txToJson } from './format/index.js';
import { scanDescriptorFor } from './scan-descriptors.js';
import { walletForRequest, type WalletHandlers, type WalletRpcDeps } from './wallet-request.js';

/** Core's GetBalance: trusted, untrusted pending and immature amounts of our unspent outputs. */
export function walletBalances(wallet: Wallet, minDepth = 0, avoidReuse = false): { trusted: bigint; untrustedPending: bigint; immature: bigint; used: bigint } {
  const txs = wallet.txs;
  let trusted = 0n;
  let untrustedPending = 0n;
  let immature = 0n;
  let used = 0n;
  const trustedParents = new Set<string>();
  for (const wtx of txs.all()) {
    const isTrusted = wallet.isTrusted(wtx, trustedParents);
    const depth = txs.depth(wtx);
    let credit = 0n;
    let usedCredit = 0n;
    if (!txs.isImmatureCoinbase(wtx)) {
      wtx.tx.outputs.forEach((out, vout) => {
        if (!wallet.isMine(out.scriptPubKey) || txs.isSpent(wtx.txid, vout)) return;
        if (avoidReuse && wallet.isUsedScript(out.scriptPubKey)) usedCredit += out.value;
        else credit += out.value;
      });
    }
    // getbalances' "used": Core subtracts the clean trusted and pending amounts from the full ones.
    if (isTrusted && depth >= minDepth) {
      trusted += credit;
      used += usedCredit;
    }
    if (!isTrusted && depth === 0 && wtx.state.kind === 'mempool') {
      untrustedPending += credit;
      used += usedCredit;
    }
    if (txs.isImmatureCoinbase(wtx) && depth > 0) {
      for (const out of wtx.tx.outputs) if (wallet.isMine(out.scriptPubKey)) immature += out.value;
    }
  }
  return { trusted, untrustedPending, immature, used };
}

interface OutputEntry {
  readonly address: string | null;
  readonly amount: bigint;
  readonly vout: number;
  readonly script: Uint8Array;
}

/** Core's CachedTxGetAmounts. */
function txAmounts(wallet: Wallet, wtx: WalletTx, includeChange: boolean): { received: OutputEntry[]; sent: OutputEntry[]; fee: bigint } {
  const received: OutputEntry[] = [];
  const sent: OutputEntry[] = [];
  const debit = wallet.debit(wtx.tx);
  const fee = debit > 0n ? debit - wtx.tx.outputs.reduce((s, o) => s + o.value, 0n) : 0n;
  wtx.tx.outputs.forEach((out, vout) => {
    const mine = wallet.isMine(out.scriptPubKey);
    if (debit > 0n) {
      if (!includeChange && wallet.isChange(out.scriptPubKey)) return;
    } else if (!mine) return;
    const entry = { address: encodeAddress(out.scriptPubKey, wallet.chainName), amount: out.value, vout, script: out.scriptPubKey };
    if (debit > 0n) sent.push(entry);
    if (mine) received.push(entry);
  });
  return { received, sent, fee };
}

/** Core's PushParentDescriptors. */
function parentDescriptors(wallet: Wallet, script: Uint8Array): string[] {
  const owner = wallet.ownerOf(script);
  const text = owner?.spkm.descriptorString(false);
  return text ? [text] : [];
}

/** Core's WalletTxToJSON, into `entry`. */
function walletTxJson(wallet: Wallet, wtx: WalletTx, entry: JsonObject): void {
  const confirmations = wallet.txs.depth(wtx);
  entry.confirmations = confirmations;
  if (wtx.tx.isCoinbase()) entry.generated = true;
  if (wtx.state.kind === 'confirmed') {
    entry.blockhash = hashToHex(wtx.state.blockHash);
    entry.blockheight = wtx.state.blockHeight;
    entry.blockindex = wtx.state.index;
    entry.blocktime = wallet.chain.blockTimes(wtx.state.blockHeight).time;
  } else {
    entry.trusted = wallet.isTrusted(wtx);
  }
  entry.txid = wtx.txid;
  entry.wtxid = wtx.tx.wtxidHex;
  entry.walletconflicts = wallet.txs.conflicts(wtx);
  entry.mempoolconflicts = [...wtx.mempoolConflicts];
  entry.time = wallet.txTime(wtx);
  entry.timereceived = wtx.timeReceived;
  entry['bip125-replaceable'] = confirmations <= 0 ? wallet.chain.isRbfOptIn(wtx.tx) : 'no';
  for (const [k, v] of [...wtx.mapValue].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) entry[k] = v;
}

/** Core's ListTransactions for one wallet transaction. */
export function listTransactionEntries(wallet: Wallet, wtx: WalletTx, minDepth: number, long: boolean, filterLabel: string | undefined, includeChange = false): JsonObject[] {
  const out: JsonObject[] = [];
  const { received, sent, fee } = txAmounts(wallet, wtx, includeChange);
  const abandoned = wallet.txs.isAbandoned(wtx);
  if (filterLabel === undefined) {
    for (const s of sent) {
      const entry: JsonObject = {};
      if (s.address !== null) entry.address = s.address;
      entry.category = 'send';
      entry.amount = amountJson(-s.amount) as unknown as Json;
      const label = s.address !== null ? wallet.addressBookLabel(s.address) : undefined;
      if (label !== undefined) entry.label = label;
      entry.vout = s.vout;
      entry.fee = amountJson(-fee) as unknown as Json;
      if (long) walletTxJson(wallet, wtx, entry);
      entry.abandoned = abandoned;
      out.push(entry);
    }
  }
  const depth = wallet.txs.depth(wtx);
  if (received.length > 0 && depth >= minDepth) {
    for (const r of received) {
      const label = r.address !== null ? wallet.addressBookLabel(r.address) : undefined;
      if (filterLabel !== undefined && (label ?? '') !== filterLabel) continue;
      const entry: JsonObject = {};
      if (r.address !== null) entry.address = r.address;
      entry.parent_descs = parentDescriptors(wallet, r.script);
      if (wtx.tx.isCoinbase()) {
        entry.category = depth < 1 ? 'orphan' : wallet.txs.isImmatureCoinbase(wtx) ? 'immature' : 'generate';
      } else {
        entry.category = 'receive';
      }
      entry.amount = amountJson(r.amount) as unknown as Json;
      if (label !== undefined) entry.label = label;
      entry.vout = r.vout;
      entry.abandoned = abandoned;
      if (long) walletTxJson(wallet, wtx, entry);
      out.push(entry);
    }
  }
  return out;
}

function walletTxOrThrow(wallet: Wallet, txid: string): WalletTx {
  const wtx = wallet.txs.get(txid);
  if (!wtx) throw new RpcError(RPC_INVALID_ADDRESS_OR_KEY, 'Invalid or non-wallet transaction id');
  return wtx;
}

function lastProcessedJson(wallet: Wallet): JsonObject {
  return wallet.lastProcessedBlock();
}

/** Core's ParseOutpoint-like checks of lockunspent's entries. */
function parseOutpoints(values: readonly Json[]): { txid: string; vout: number }[] {
  return values.map((value) => {
    const o = getObj(value);
    rpcTypeCheckObj(o, { txid: 'string', vout: 'number' }, false, true);
    const txid = hashToHex(parseHash(getStr(o.txid), 'txid'));
    const vout = getInt(o.vout, Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER);
    if (vout < 0) throw new RpcError(RPC_INVALID_PARAMETER, 'Invalid parameter, vout cannot be negative');
    return { txid, vout };
  });
}

export function walletCoinHandlers(deps: WalletRpcDeps): WalletHandlers {
  return {
    getbalances: (_args, ctx) => {
      const wallet = walletForRequest(deps, ctx);
      const avoidReuse = wallet.hasFlag(WALLET_FLAG.AVOID_REUSE);
      const b = walletBalances(wallet, 0, avoidReuse);
      const mine: JsonObject = { trusted: amountJson(b.trusted) as unknown as Json, untrusted_pending: amountJson(b.untrustedPending) as unknown as Json, immature: amountJson(b.immature) as unknown as Json };
      if (avoidReuse) mine.used = amountJson(b.used) as unknown as Json;
      return { mine, lastprocessedblock: lastProcessedJson(wallet) };
    },

    getbalance: (args, ctx) => {
      const wallet = walletForRequest(deps, ctx);
      const dummy = args.optString('dummy');
      if (dummy !== undefined && dummy !== '*') throw new RpcError(RPC_INVALID_PARAMETER, 'dummy first argument must be excluded or set to "*".');
      const minDepth = args.int('minconf');
      const avoidReuse = wallet.hasFlag(WALLET_FLAG.AVOID_REUSE) && args.boolean('avoid_reuse');
      return amountJson(walletBalances(wallet, minDepth, avoidReuse).trusted);
    },

    listunspent: (args, ctx) => {
      const wallet = walletForRequest(deps, ctx);
      const minDepth = args.int('minconf');
      const maxDepth = args.int('maxconf');
      const addresses = new Set<string>();
      for (const value of args.optArray('addresses') ?? []) {
        const text = getStr(value);
        const decoded = decodeAddress(text, wallet.chainName);
        if (!decoded.ok) throw new RpcError(RPC_INVALID_ADDRESS_OR_KEY, `Invalid Bitcoin address: ${text}`);
        if (addresses.has(text)) throw new RpcError(RPC_INVALID_PARAMETER, `Invalid parameter, duplicated address: ${text}`);
        addresses.add(text);
      }
      const includeUnsafe = args.boolean('include_unsafe');
      const query = args.optObject('query_options') ?? {};
      rpcTypeCheckObj(query, { minimumAmount: 'number', maximumAmount: 'number', minimumSumAmount: 'number', maximumCount: 'number', include_immature_coinbase: 'bool' }, true, true);
      const minimumAmount = query.minimumAmount !== undefined ? amountFromValue(query.minimumAmount) : 0n;
      const maximumAmount = query.maximumAmount !== undefined ? amountFromValue(query.maximumAmount) : 21_000_000n * 100_000_000n;
      const minimumSum = query.minimumSumAmount !== undefined ? amountFromValue(query.minimumSumAmount) : undefined;
      const maximumCount = query.maximumCount !== undefined ? getInt(query.maximumCount, Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER) : 0;
      const includeImmature = query.include_immature_coinbase === true;
      const out: JsonObject[] = [];
      let total = 0n;
      const trustedParents = new Set<string>();
      for (const wtx of wallet.txs.all()) {
        const depth = wallet.txs.depth(wtx);
        if (!includeImmature && wallet.txs.isImmatureCoinbase(wtx)) continue;
        if (depth < 0) continue;
        if (depth === 0 && wtx.state.kind !== 'mempool') continue;
        let safe = wallet.isTrusted(wtx, trustedParents);
        if (depth === 0 && (wtx.mapValue.has('replaces_txid') || wtx.mapValue.has('replaced_by_txid'))) safe = false;
        if (!includeUnsafe && !safe) continue;
        if (depth < minDepth || depth > maxDepth) continue;
        for (let vout = 0; vout < wtx.tx.outputs.length; vout++) {
          const output = wtx.tx.outputs[vout]!;
          if (output.value < minimumAmount || output.value > maximumAmount) continue;
          if (!wallet.isMine(output.scriptPubKey) || wallet.isLockedCoin(wtx.txid, vout) || wallet.txs.isSpent(wtx.txid, vout)) continue;
          const address = encodeAddress(output.scriptPubKey, wallet.chainName);
          if (addresses.size > 0 && (address === null || !addresses.has(address))) continue;
          out.push(unspentEntry(wallet, wtx, vout, address, depth, safe));
          total += output.value;
          if (maximumCount > 0 && out.length >= maximumCount) break;
          if (minimumSum !== undefined && total >= minimumSum) break;
        }
        if ((maximumCount > 0 && out.length >= maximumCount) || (minimumSum !== undefined && total >= minimumSum)) break;
      }
      return out;
    },

    listtransactions: (args, ctx) => {
      const wallet = walletForRequest(deps, ctx);
      const labelArg = args.optString('label');
      const filterLabel = labelArg !== undefined && labelArg !== '*' ? labelArg : undefined;
      const count = args.int('count');
      if (count < 0) throw new RpcError(RPC_INVALID_PARAMETER, 'Negative count');
      const from = args.int('skip');
      if (from < 0) throw new RpcError(RPC_INVALID_PARAMETER, 'Negative from');
      const all: JsonObject[] = [];
      const ordered = wallet.txs.ordered();
      for (let i = ordered.length - 1; i >= 0; i--) {
        all.push(...listTransactionEntries(wallet, ordered[i]!, 0, true, filterLabel));
        if (all.length >= count + from) break;
      }
      const start = Math.min(from, all.length);
      const n = Math.min(count, all.length - start);
      return all.slice(start, start + n).reverse();
    },

    gettransaction: (args, ctx) => {
      const wallet = walletForRequest(deps, ctx);
      const txid = hashToHex(parseHash(args.string('txid'), 'txid'));
      const wtx = walletTxOrThrow(wallet, txid);
      // Core: nNet = credit - debit, nFee = value out - debit for our own sends, amount = nNet - nFee.
      const credit = wallet.txs.isImmatureCoinbase(wtx) ? 0n : wtx.tx.outputs.reduce((sum, o) => (wallet.isMine(o.scriptPubKey) ? sum + o.value : sum), 0n);
      const debit = wallet.debit(wtx.tx);
      const fee = debit > 0n ? wtx.tx.outputs.reduce((sum, o) => sum + o.value, 0n) - debit : 0n;
      const entry: JsonObject = { amount: amountJson(credit - debit - fee) as unknown as Json };
      if (debit > 0n) entry.fee = amountJson(fee) as unknown as Json;
      walletTxJson(wallet, wtx, entry);
      entry.details = listTransactionEntries(wallet, wtx, 0, false, undefined);
      entry.hex = Buffer.from(wtx.tx.toBytes()).toString('hex');
      if (args.boolean('verbose')) {
        const decoded = txToJson(wtx.tx, { chain: wallet.chainName, includeHex: false }) as unknown as JsonObject;
        // Core's TxToUniv with OutputIsChange: our outputs outside the address book say so.
        (decoded.vout as JsonObject[]).forEach((out, n) => {
          if (wallet.isChange(wtx.tx.outputs[n]!.scriptPubKey)) out.ischange = true;
        });
        entry.decoded = decoded;
      }
      entry.lastprocessedblock = lastProcessedJson(wallet);
      return entry;
    },

    getreceivedbyaddress: (args, ctx) => {
      const wallet = walletForRequest(deps, ctx);
      const text = args.string('address');
      const decoded = decodeAddress(text, wallet.chainName);
      if (!decoded.ok) throw new RpcError(RPC_INVALID_ADDRESS_OR_KEY, 'Invalid Bitcoin address');
      const script = decoded.scriptPubKey;
      if (!wallet.isMine(script)) throw new RpcError(RPC_WALLET_ERROR, 'Address not found in wallet');
      return amountJson(receivedBy(wallet, (s) => Buffer.compare(Buffer.from(s), Buffer.from(script)) === 0, args.int('minconf'), args.boolean('include_immature_coinbase')));
    },

    getreceivedbylabel: (args, ctx) => {
      const wallet = walletForRequest(deps, ctx);
      const label = args.string('label');
      const scripts = new Set<string>();
      for (const [address, l] of wallet.stored.labels) {
        if (l !== label) continue;
        const decoded = decodeAddress(address, wallet.chainName);
        if (decoded.ok && wallet.isMine(decoded.scriptPubKey)) scripts.add(Buffer.from(decoded.scriptPubKey).toString('hex'));
      }
      return amountJson(receivedBy(wallet, (s) => scripts.has(Buffer.from(s).toString('hex')), args.int('minconf'), args.boolean('include_immature_coinbase')));
    },

    lockunspent: (args, ctx) => {
      const wallet = walletForRequest(deps, ctx);
      const unlock = args.boolean('unlock');
      const persistent = args.boolean('persistent');
      const list = args.optArray('transactions');
      if (list === undefined) {
        if (unlock) wallet.unlockAllCoins();
        else throw new RpcError(RPC_INVALID_PARAMETER, 'Invalid parameter, unexpected locked output');
        return true;
      }
      const outpoints = parseOutpoints(list);
      for (const { txid, vout } of outpoints) {
        const wtx = wallet.txs.get(txid);
        if (!wtx) throw new RpcError(RPC_INVALID_PARAMETER, 'Invalid parameter, unknown transaction');
        if (vout >= wtx.tx.outputs.length) throw new RpcError(RPC_INVALID_PARAMETER, 'Invalid parameter, vout index out of bounds');
        if (wallet.txs.isSpent(txid, vout)) throw new RpcError(RPC_INVALID_PARAMETER, 'Invalid parameter, expected unspent output');
        const locked = wallet.isLockedCoin(txid, vout);
        if (unlock && !locked) throw new RpcError(RPC_INVALID_PARAMETER, 'Invalid parameter, expected locked output');
        if (!unlock && locked && !persistent) throw new RpcError(RPC_INVALID_PARAMETER, 'Invalid parameter, output already locked');
      }
      for (const { txid, vout } of outpoints) {
        if (unlock) wallet.unlockCoin(txid, vout);
        else wallet.lockCoin(txid, vout, persistent);
      }
      return true;
    },

    listlockunspent: (_args, ctx) => {
      const wallet = walletForRequest(deps, ctx);
      return wallet.lockedCoins().map((key) => {
        const [txid, vout] = key.split(':');
        return { txid: txid!, vout: Number(vout) };
      });
    },

    simulaterawtransaction: (args, ctx) => {
      const wallet = walletForRequest(deps, ctx);
      let change = 0n;
      // Outputs made by earlier transactions of the list (ours or not), and outpoints spent.
      const created = new Map<string, bigint>();
      const spent = new Set<string>();
      for (const hex of args.optArray('rawtxs') ?? []) {
        const tx = decodeTxHex(getStr(hex), true, true);
        if (!tx) throw new RpcError(RPC_DESERIALIZATION_ERROR, 'Transaction hex string decoding failure.');
        for (const input of tx.inputs) {
          const txid = hashToHex(input.prevout.txid);
          const key = `${txid}:${input.prevout.vout}`;
          if (spent.has(key)) throw new RpcError(RPC_INVALID_PARAMETER, 'Transaction(s) are spending the same output more than once');
          if (created.has(key)) {
            change -= created.get(key)!;
            created.delete(key);
          } else {
            if (!wallet.chain.findCoin(txid, input.prevout.vout)) throw new RpcError(RPC_INVALID_PARAMETER, 'One or more transaction inputs are missing or have been spent already');
            // Core's GetDebit for the input: the value when the spent output is ours.
            const out = wallet.txs.get(txid)?.tx.outputs[input.prevout.vout];
            if (out && wallet.isMine(out.scriptPubKey)) change -= out.value;
          }
          spent.add(key);
        }
        tx.outputs.forEach((out, vout) => {
          const value = wallet.isMine(out.scriptPubKey) ? out.value : 0n;
          created.set(`${tx.txidHex}:${vout}`, value);
          change += value;
        });
      }
      return { balance_change: amountJson(change) };
    },

    importprunedfunds: (args, ctx) => {
      const wallet = walletForRequest(deps, ctx);
      const tx = decodeTxHex(args.string('rawtransaction'), false, true);
      if (!tx) throw new RpcError(RPC_DESERIALIZATION_ERROR, 'TX decode failed. Make sure the tx has at least one input.');
      let merkleBlock;
      try {
        merkleBlock = parseMerkleBlock(parseHexV(args.value('txoutproof'), 'proof'));
      } catch (err) {
        if (err instanceof MerkleBlockReadError) throw new RpcError(RPC_MISC_ERROR, `${err.message}: iostream error`);
        throw err;
      }
      const extracted = extractMatches(merkleBlock.tree);
      if (!extracted.root || Buffer.compare(Buffer.from(extracted.root), Buffer.from(merkleBlock.header.merkleRoot)) !== 0) throw new RpcError(RPC_INVALID_ADDRESS_OR_KEY, 'Something wrong with merkleblock');
      const info = wallet.chain.blockInfo(merkleBlock.header.hash);
      if (!info || !info.active || info.height > wallet.lastProcessed.height) throw new RpcError(RPC_INVALID_ADDRESS_OR_KEY, 'Block not found in chain');
      const at = extracted.matches.findIndex((m) => Buffer.compare(Buffer.from(m), Buffer.from(tx.txid)) === 0);
      if (at < 0) throw new RpcError(RPC_INVALID_ADDRESS_OR_KEY, "Transaction given doesn't exist in proof");
      if (!wallet.addPrunedTransaction(tx, merkleBlock.header.hash, info.height, extracted.indexes[at]!)) {
        throw new RpcError(RPC_INVALID_ADDRESS_OR_KEY, 'No addresses in wallet correspond to included transaction');
      }
      return null;
    },

    removeprunedfunds: (args, ctx) => {
      const wallet = walletForRequest(deps, ctx);
      const txid = hashToHex(parseHash(args.string('txid'), 'txid'));
      if (!wallet.removeTransaction(txid)) throw new RpcError(RPC_WALLET_ERROR, `Transaction ${txid} does not belong to this wallet`);
      return null;
    },

    abandontransaction: (args, ctx) => {
      const wallet = walletForRequest(deps, ctx);
      const txid = hashToHex(parseHash(args.string('txid'), 'txid'));
      walletTxOrThrow(wallet, txid);
      let ok: boolean;
      try {
        ok = wallet.abandon(txid);
      } catch (err) {
        throw new RpcError(RPC_INVALID_ADDRESS_OR_KEY, 'Transaction not eligible for abandonment');
      }
      if (!ok) throw new RpcError(RPC_INVALID_ADDRESS_OR_KEY, 'Transaction not eligible for abandonment');
      return null;
    },
  };
}

/** Core's GetReceived: outputs to matching scripts in transactions deep enough (a coinbase only once in the chain, and mature unless asked). */
function receivedBy(wallet: Wallet, matches: (script: Uint8Array) => boolean, minDepth: number, includeImmature: boolean): bigint {
  let total = 0n;
  for (const wtx of wallet.txs.all()) {
    const depth = wallet.txs.depth(wtx);
    if (depth < minDepth || (wtx.tx.isCoinbase() && depth < 1) || (wallet.txs.isImmatureCoinbase(wtx) && !includeImmature)) continue;
    for (const out of wtx.tx.outputs) if (matches(out.scriptPubKey)) total += out.value;
  }
  return total;
}

/** The script a P2SH output of the wallet commits to (the inner script of its sh() descriptor). */
function redeemScriptOf(wallet: Wallet, script: Uint8Array): Uint8Array | undefined {
  if (!(script.length === 23 && script[0] === 0xa9)) return undefined;
  const owner = wallet.ownerOf(script);
  const expansion = owner?.spkm.expansionAt(owner.index);
  const inner = expansion?.descriptor.name === 'sh' ? expansion.descriptor.subArgs[0] : undefined;
  return inner?.expand(owner!.index, expansion!.keys)?.[0] ?? undefined;
}

function unspentEntry(wallet: Wallet, wtx: WalletTx, vout: number, address: string | null, depth: number, safe: boolean): JsonObject {
  const output = wtx.tx.outputs[vout]!;
  const entry: JsonObject = { txid: wtx.txid, vout };
  if (address !== null) {
    entry.address = address;
    const label = wallet.addressBookLabel(address);
    if (label !== undefined) entry.label = label;
    const redeem = redeemScriptOf(wallet, output.scriptPubKey);
    if (redeem) entry.redeemScript = Buffer.from(redeem).toString('hex');
  }
  entry.scriptPubKey = Buffer.from(output.scriptPubKey).toString('hex');
  entry.amount = amountJson(output.value) as unknown as Json;
  entry.confirmations = depth;
  if (depth === 0) {
    const ancestors = wallet.chain.mempoolAncestry?.(wtx.txid);
    if (ancestors) {
      entry.ancestorcount = ancestors.count;
      entry.ancestorsize = ancestors.size;
      entry.ancestorfees = Number(ancestors.fees);
    }
  }
  entry.spendable = true;
  entry.solvable = true;
  const owner = wallet.ownerOf(output.scriptPubKey)!;
  const expansion = owner.spkm.expansionAt(owner.index);
  if (expansion) entry.desc = scanDescriptorFor(expansion.descriptor, owner.index, expansion.keys, wallet.chainName, output.scriptPubKey);
  entry.parent_descs = parentDescriptors(wallet, output.scriptPubKey);
  if (wallet.hasFlag(WALLET_FLAG.AVOID_REUSE)) entry.reused = wallet.isUsedScript(output.scriptPubKey);
  entry.safe = safe;
  return entry;
}
