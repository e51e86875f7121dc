/**
 * The mempool's part of the address index (-addressindex): which scripts each pooled
 * transaction funds or spends, mirrored into the chainstate's `mempooladdr` table with the
 * mempool table, so HTTP front-ends answer an address's unconfirmed activity from their
 * snapshot. The pool journals additions and removals here; the owner takes the changes
 * with the mempool table's.
 */
import { hashToHex } from '../primitives/index.js';
import { isUnspendable } from '../script/index.js';
import { scriptHashOf } from '../storage/index.js';
import type { MempoolEntry } from './entry.js';

/** One transaction's mirror rows: the scripts it touches. */
export interface MempoolAddressRows {
  readonly txid: Uint8Array;
  readonly scriptHashes: readonly Uint8Array[];
}

/** Mirror rows to write and to remove. */
export interface MempoolAddressChanges {
  readonly puts: readonly MempoolAddressRows[];
  readonly deletes: readonly MempoolAddressRows[];
}

/** The distinct scripts a pooled transaction funds (spendable outputs) or spends. */
export function scriptsTouched(entry: MempoolEntry): Uint8Array[] {
  const byId = new Map<string, Uint8Array>();
  const touch = (script: Uint8Array): void => {
    const hash = scriptHashOf(script);
    byId.set(hashToHex(hash), hash);
  };
  for (const output of entry.tx.outputs) if (!isUnspendable(output.scriptPubKey)) touch(output.scriptPubKey);
  for (const spent of entry.spentOutputs) touch(spent.scriptPubKey);
  return [...byId.values()];
}

export class MempoolAddressJournal {
  /** Per txid, the entry last added or removed, and whether it is pooled now. */
  private readonly changes = new Map<string, { entry: MempoolEntry; pooled: boolean }>();

  added(entry: MempoolEntry): void {
    this.changes.set(entry.txid, { entry, pooled: true });
  }

  removed(entry: MempoolEntry): void {
    this.changes.set(entry.txid, { entry, pooled: false });
  }

  get dirty(): boolean {
    return this.changes.size > 0;
  }

  /** The journal as mirror changes; it is emptied (the caller commits them). */
  take(): MempoolAddressChanges {
    const puts: MempoolAddressRows[] = [];
    const deletes: MempoolAddressRows[] = [];
    for (const { entry, pooled } of this.changes.values()) (pooled ? puts : deletes).push({ txid: entry.tx.txid, scriptHashes: scriptsTouched(entry) });
    this.changes.clear();
    return { puts, deletes };
  }
}
