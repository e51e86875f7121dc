/**
 * The real mainnet blocks in test/vectors/data with the outputs their inputs spend, ready
 * to be turned into script-check jobs. Every spent output is matched to the outpoint its
 * input names, so a misaligned vector fails loudly instead of verifying the wrong thing.
 */
import { fromHex, hashToHex, parseBlock, type ParsedBlock, type TxOut } from '../../src/primitives/index.js';
import { readVectorJson, readVectorText } from './vectors.js';

export interface BlockWithPrevouts {
  readonly block: ParsedBlock;
  /** Per transaction, the outputs its inputs spend in input order; empty for the coinbase. */
  readonly spentOutputs: readonly (readonly TxOut[])[];
}

interface PrevoutEntry {
  tx: number;
  input: number;
  txid: string;
  vout: number;
  value: number;
  scriptPubKey: string;
}

/** Mainnet block 277,647 (213 transactions, 732 P2PKH inputs) and the coins it spends. */
export function loadBlock277647(): BlockWithPrevouts {
  const block = parseBlock(fromHex(readVectorText('block277647.hex').trim()));
  const entries = readVectorJson<PrevoutEntry[]>('block277647-prevouts.json');
  const spentOutputs: TxOut[][] = block.transactions.map(() => []);
  for (const entry of entries) {
    const input = block.transactions[entry.tx]?.inputs[entry.input];
    if (!input || hashToHex(input.prevout.txid) !== entry.txid || input.prevout.vout !== entry.vout) {
      throw new Error(`prevout entry for tx ${entry.tx} input ${entry.input} does not match the block`);
    }
    if (spentOutputs[entry.tx]!.length !== entry.input) throw new Error(`prevout entries out of order at tx ${entry.tx}`);
    spentOutputs[entry.tx]!.push({ value: BigInt(entry.value), scriptPubKey: fromHex(entry.scriptPubKey) });
  }
  block.transactions.forEach((tx, i) => {
    const expected = i === 0 ? 0 : tx.inputs.length;
    if (spentOutputs[i]!.length !== expected) throw new Error(`tx ${i}: ${spentOutputs[i]!.length} prevouts for ${expected} inputs`);
  });
  return { block, spentOutputs };
}

/**
 * Mainnet heights 0–255 with spent outputs found by replaying them: a UTXO map keyed by
 * txid:vout is built block by block, exactly as a chainstate would.
 */
export function loadMainnet0To255(): BlockWithPrevouts[] {
  const lines = readVectorText('mainnet-blocks-0-255.hex').split('\n').filter((line) => line.trim() !== '');
  const utxos = new Map<string, TxOut>();
  return lines.map((line, height) => {
    const block = parseBlock(fromHex(line.trim()));
    // Transaction by transaction, so a spend of an earlier output of the same block resolves.
    const spentOutputs = block.transactions.map((tx, i) => {
      const spent = i === 0 ? [] : tx.inputs.map((input) => {
        const key = `${hashToHex(input.prevout.txid)}:${input.prevout.vout}`;
        const coin = utxos.get(key);
        if (!coin) throw new Error(`height ${height}: input spends unknown coin ${key}`);
        utxos.delete(key);
        return coin;
      });
      tx.outputs.forEach((output, vout) => utxos.set(`${tx.txidHex}:${vout}`, output));
      return spent;
    });
    return { block, spentOutputs };
  });
}
