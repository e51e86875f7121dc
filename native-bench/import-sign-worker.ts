/**
 * The Piscina worker that signs one block's transactions for the import-benchmark chain
 * (import-chain.ts): unsigned transactions and the coins they spend in, the same
 * transactions with every witness filled in out (serialized with witnesses).
 */
import { parseTransaction } from '../src/primitives/index.js';
import { signTransaction, type SpentCoin } from './import-keys.js';

export interface SignItem {
  /** The unsigned transaction, serialized without witnesses. */
  tx: Uint8Array;
  spent: SpentCoin[];
}

export default function signBlockTransactions(items: readonly SignItem[]): Uint8Array[] {
  return items.map((item) => signTransaction(parseTransaction(item.tx), item.spent).toBytes());
}
