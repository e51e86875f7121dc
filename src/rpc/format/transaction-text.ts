/**
 * Transactions as JSON text written directly, byte for byte what writeJson prints of
 * txToJson and rawTransactionJson (transaction.ts): getblock 2/3 and getrawtransaction
 * print thousands of these, and building objects only for JSON.stringify to walk them
 * (with every amount marked and unmarked again) cost more than the rendering itself.
 * transaction.ts stays the reference; the unit test compares the two on every kind of
 * transaction.
 */
import type { Coin } from '../../consensus/index.js';
import { hashToHex, toHex, type Transaction } from '../../primitives/index.js';
import type { ChainName } from '../../script/index.js';
import { amountText } from '../values.js';
import { scriptPubKeyText, scriptSigText } from './script.js';
import { spentCoinsOf, type RawTransactionJsonOptions, type TxJsonOptions } from './transaction.js';

function witnessText(witness: readonly Uint8Array[]): string {
  let out = '';
  for (let i = 0; i < witness.length; i++) out += `${i > 0 ? ',' : ''}"${toHex(witness[i]!)}"`;
  return `[${out}]`;
}

/** TxToUniv's members (no braces), as txToJson orders them. */
export function txMembersText(tx: Transaction, options: TxJsonOptions): string {
  const { chain } = options;
  const coinbase = tx.isCoinbase();
  const undo = spentCoinsOf(tx, coinbase, options);
  let vin = '';
  for (let i = 0; i < tx.inputs.length; i++) {
    const input = tx.inputs[i]!;
    let entry = coinbase ? `{"coinbase":"${toHex(input.scriptSig)}"` : `{"txid":"${hashToHex(input.prevout.txid)}","vout":${input.prevout.vout},"scriptSig":${scriptSigText(input.scriptSig)}`;
    if (input.witness.length > 0) entry += `,"txinwitness":${witnessText(input.witness)}`;
    if (undo && options.prevouts) entry += `,"prevout":${prevoutText(undo[i]!, chain)}`;
    vin += `${i > 0 ? ',' : ''}${entry},"sequence":${input.sequence}}`;
  }
  let vout = '';
  for (let n = 0; n < tx.outputs.length; n++) {
    const output = tx.outputs[n]!;
    vout += `${n > 0 ? ',' : ''}{"value":${amountText(output.value)},"n":${n},"scriptPubKey":${scriptPubKeyText(output.scriptPubKey, chain)}}`;
  }
  let out = `"txid":"${tx.txidHex}","hash":"${tx.wtxidHex}","version":${tx.version},"size":${tx.totalSize},"vsize":${tx.vsize},"weight":${tx.weight},"locktime":${tx.locktime},"vin":[${vin}],"vout":[${vout}]`;
  if (undo) {
    let fee = 0n;
    for (const coin of undo) fee += coin.output.value;
    for (const output of tx.outputs) fee -= output.value;
    out += `,"fee":${amountText(fee)}`;
  }
  if (options.blockhash !== undefined) out += `,"blockhash":${JSON.stringify(options.blockhash)}`;
  if (options.includeHex ?? true) out += `,"hex":"${toHex(tx.toBytes())}"`;
  return out;
}

function prevoutText(coin: Coin, chain: ChainName): string {
  return `{"generated":${coin.coinbase},"height":${coin.height},"value":${amountText(coin.output.value)},"scriptPubKey":${scriptPubKeyText(coin.output.scriptPubKey, chain)}}`;
}

/** writeJson(txToJson(tx, options)), written directly. */
export function txText(tx: Transaction, options: TxJsonOptions): string {
  return `{${txMembersText(tx, options)}}`;
}

/** writeJson(rawTransactionJson(tx, options)), written directly. */
export function rawTransactionText(tx: Transaction, options: RawTransactionJsonOptions): string {
  return wrapRawTransactionText(rawTransactionMembersText(tx, options), options);
}

/** The part of getrawtransaction's text that depends on the transaction (and its spent coins) only. */
export function rawTransactionMembersText(tx: Transaction, options: Pick<RawTransactionJsonOptions, 'chain' | 'undo'>): string {
  return txMembersText(tx, { chain: options.chain, includeHex: true, undo: options.undo, prevouts: true });
}

/** getrawtransaction's text around rawTransactionMembersText: in_active_chain before, the block's fields after. */
export function wrapRawTransactionText(members: string, options: Pick<RawTransactionJsonOptions, 'inActiveChain' | 'block'>): string {
  let out = options.inActiveChain === undefined ? `{${members}` : `{"in_active_chain":${options.inActiveChain},${members}`;
  const block = options.block;
  if (block) {
    out += `,"blockhash":"${block.hash}"`;
    if (block.index) {
      out += `,"confirmations":${block.index.confirmations}`;
      if (block.index.time !== undefined) out += `,"time":${block.index.time},"blocktime":${block.index.time}`;
    }
  }
  return `${out}}`;
}
