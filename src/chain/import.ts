/**
 * Loading blocks from block files (Core's LoadExternalBlockFile): -loadblock=FILE and
 * -reindex. Blocks may appear in any order; one whose parent is not known yet waits in
 * memory until the parent is accepted, then it and any waiting descendants follow.
 * The best chain is activated once the files are read, as Core's ImportBlocks does.
 */
import { bytesEqual, hashToHex, parseBlock, type Block } from '../primitives/index.js';
import { scanBlockFile, type ScannedBlock } from '../storage/index.js';
import type { BlockDataPosition } from './block-index-entry.js';
import type { Chainstate } from './chainstate.js';
import { eventLoopTurn } from './event-loop-turns.js';

export interface ImportReport {
  /** Blocks read from the file(s). */
  read: number;
  /** Blocks newly accepted into the block index. */
  loaded: number;
  /** Blocks still waiting for a parent when the input ended. */
  orphaned: number;
}

interface Waiting {
  block: Block;
  bytes: Uint8Array;
  stored: BlockDataPosition | undefined;
}

function tryParse(bytes: Uint8Array): Block | undefined {
  try {
    return parseBlock(bytes);
  } catch {
    return undefined;
  }
}

/**
 * Feeds `records` (blocks with, for -reindex, their existing positions) to the chainstate.
 * `inPlace` means the records come from our own block files and must not be rewritten.
 */
export async function importBlocks(
  chain: Chainstate,
  records: Iterable<ScannedBlock & { readonly block?: Block }>,
  inPlace: boolean,
  log: (m: string) => void,
  shouldStop: () => boolean = () => false,
): Promise<ImportReport> {
  const report: ImportReport = { read: 0, loaded: 0, orphaned: 0 };
  const waitingByParent = new Map<string, Waiting[]>();
  const genesisHash = chain.params.genesisHash;
  chain.importing = true;
  try {
    for (const record of records) {
      await eventLoopTurn();
      // Shutdown interrupts an import between blocks; what was accepted stays.
      if (shouldStop()) break;
      const block = record.block ?? tryParse(record.bytes);
      if (!block) continue;
      report.read++;
      const stored = inPlace ? { file: record.file, pos: record.pos } : undefined;
      const isGenesis = bytesEqual(block.header.hash, genesisHash);
      if (!isGenesis && !chain.knows(block.header.prevHash)) {
        const parent = hashToHex(block.header.prevHash);
        const list = waitingByParent.get(parent) ?? [];
        list.push({ block, bytes: record.bytes, stored });
        waitingByParent.set(parent, list);
        continue;
      }
      if (await accept(chain, block, record.bytes, stored, log)) report.loaded++;
      if (isGenesis) await chain.activateBestChain();
      // Blocks that were waiting for this one (and their own descendants) can go now.
      const queue = [block.header.hashHex];
      while (queue.length > 0) {
        const head = queue.shift()!;
        const children = waitingByParent.get(head);
        if (!children) continue;
        waitingByParent.delete(head);
        for (const child of children) {
          if (await accept(chain, child.block, child.bytes, child.stored, log)) report.loaded++;
          queue.push(child.block.header.hashHex);
        }
      }
    }
    // The stored blocks go out to disk while they are connected, not in the final flush.
    chain.syncStoredBlocksInBackground();
    // Connecting is still part of the import: the coins cache flushes in batches meanwhile.
    await chain.activateBestChain();
  } finally {
    chain.importing = false;
  }
  await chain.flushNow();
  for (const list of waitingByParent.values()) report.orphaned += list.length;
  return report;
}

async function accept(chain: Chainstate, block: Block, bytes: Uint8Array, stored: BlockDataPosition | undefined, log: (m: string) => void): Promise<boolean> {
  const entry = chain.lookup(block.header.hashHex);
  if (entry?.hasData) return false;
  const verdict = await chain.importBlock(block, bytes, stored);
  if (!verdict.ok) log(`Block import: ${block.header.hashHex} rejected: ${verdict.reason}`);
  return verdict.ok;
}

/** -loadblock=FILE: every block in a Core-framed file (no obfuscation), written into our block files. */
export function importBlockFile(chain: Chainstate, path: string, log: (m: string) => void, shouldStop?: () => boolean): Promise<ImportReport> {
  // The scan parses each candidate to decide whether it is a block (Core's loop does the
  // same); the block it parsed is handed on rather than parsed a second time.
  let parsed: Block | undefined;
  const records = scanBlockFile(path, chain.params.messageStart, new Uint8Array(8), { accept: (bytes) => (parsed = tryParse(bytes)) !== undefined });
  return importBlocks(chain, withParsedBlock(records, () => parsed), false, log, shouldStop);
}

/** Each scanned record with the block its accept check parsed (the scan yields right after accepting). */
function* withParsedBlock(records: Iterable<ScannedBlock>, lastParsed: () => Block | undefined): Generator<ScannedBlock & { readonly block?: Block }> {
  for (const record of records) {
    const block = lastParsed();
    yield block ? { ...record, block } : record;
  }
}
