/**
 * Esplora's JSON objects, field for field as electrs serializes them (rest.rs's
 * BlockValue, TransactionValue, TxInValue, TxOutValue, TransactionStatus, UtxoValue,
 * SpendingValue): amounts in satoshis, hashes in display order, optional fields left out.
 */
import type { ViewEntry } from '../chain/index.js';
import { blockWeight, getDifficulty, type ChainName } from '../consensus/index.js';
import { toHex, hashToHex, type ParsedBlock, type Transaction, type TxOut } from '../primitives/index.js';
import { encodeAddress } from '../script/index.js';
import type { Spend } from './chain-reads.js';
import { f64, type EsploraJson } from './json-text.js';
import { esploraAsm, esploraScriptType, innerScripts } from './script-asm.js';

export function statusValue(block: ViewEntry | undefined): EsploraJson {
  if (!block) return { confirmed: false };
  return { confirmed: true, block_height: block.height, block_hash: block.hashHex, block_time: block.time };
}

export function blockValue(entry: ViewEntry, block: ParsedBlock): EsploraJson {
  const header = entry.header;
  const prev = entry.height > 0 ? hashToHex(header.prevHash) : null;
  return {
    id: entry.hashHex,
    height: entry.height,
    version: header.version >>> 0,
    timestamp: header.time,
    tx_count: block.transactions.length,
    size: block.size,
    weight: blockWeight(block),
    merkle_root: hashToHex(header.merkleRoot),
    previousblockhash: prev,
    mediantime: entry.medianTimePast(),
    nonce: header.nonce,
    bits: header.bits,
    difficulty: f64(getDifficulty(header.bits)),
  };
}

export function txOutValue(output: TxOut, chain: ChainName): EsploraJson {
  return {
    scriptpubkey: toHex(output.scriptPubKey),
    scriptpubkey_asm: esploraAsm(output.scriptPubKey),
    scriptpubkey_type: esploraScriptType(output.scriptPubKey),
    scriptpubkey_address: encodeAddress(output.scriptPubKey, chain) ?? undefined,
    value: output.value,
  };
}

/** Fee in satoshis: inputs minus outputs; 0 for a coinbase (electrs's get_tx_fee). */
export function txFee(tx: Transaction, prevouts: readonly (TxOut | undefined)[]): bigint {
  if (tx.isCoinbase()) return 0n;
  const spent = prevouts.reduce((sum, p) => sum + (p?.value ?? 0n), 0n);
  const created = tx.outputs.reduce((sum, o) => sum + o.value, 0n);
  return spent - created;
}

export function txValue(tx: Transaction, prevouts: readonly (TxOut | undefined)[], block: ViewEntry | undefined, chain: ChainName): EsploraJson {
  const coinbase = tx.isCoinbase();
  return {
    txid: tx.txidHex,
    version: tx.version >>> 0,
    locktime: tx.locktime,
    vin: tx.inputs.map((input, i) => {
      const prevout = coinbase ? undefined : prevouts[i];
      const inner = prevout ? innerScripts(prevout.scriptPubKey, input.scriptSig, input.witness) : {};
      return {
        txid: hashToHex(input.prevout.txid),
        vout: input.prevout.vout,
        prevout: prevout ? txOutValue(prevout, chain) : null,
        scriptsig: toHex(input.scriptSig),
        scriptsig_asm: esploraAsm(input.scriptSig),
        witness: input.witness.length > 0 ? input.witness.map(toHex) : undefined,
        is_coinbase: coinbase,
        sequence: input.sequence,
        inner_redeemscript_asm: inner.redeem ? esploraAsm(inner.redeem) : undefined,
        inner_witnessscript_asm: inner.witness ? esploraAsm(inner.witness) : undefined,
      };
    }),
    vout: tx.outputs.map((output) => txOutValue(output, chain)),
    size: tx.totalSize,
    weight: tx.weight,
    fee: txFee(tx, prevouts),
    status: statusValue(block),
  };
}

export function spendingValue(spend: Spend | undefined): EsploraJson {
  if (!spend) return { spent: false };
  return { spent: true, txid: hashToHex(spend.txid), vin: spend.vin, status: statusValue(spend.block) };
}

export function utxoValue(txid: Uint8Array, vout: number, block: ViewEntry | undefined, value: bigint): EsploraJson {
  return { txid: hashToHex(txid), vout, status: statusValue(block), value };
}
