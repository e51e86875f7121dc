/**
 * Core's debug-log categories (v31 logging.cpp, alphabetical as the `logging` RPC lists
 * them) and the names -debug / -debugexclude / `logging` accept for "all" and "none".
 */
export const LOG_CATEGORIES: readonly string[] = [
  'addrman',
  'bench',
  'blockstorage',
  'cmpctblock',
  'coindb',
  'estimatefee',
  'http',
  'i2p',
  'ipc',
  'kernel',
  'leveldb',
  'libevent',
  'mempool',
  'mempoolrej',
  'net',
  'privatebroadcast',
  'proxy',
  'prune',
  'qt',
  'rand',
  'reindex',
  'rpc',
  'scan',
  'selectcoins',
  'tor',
  'txpackages',
  'txreconciliation',
  'validation',
  'walletdb',
  'zmq',
];

const KNOWN = new Set(LOG_CATEGORIES);

/** The categories a name stands for: all of them for '', '1', 'all'; undefined if unknown. */
export function resolveLogCategory(name: string): readonly string[] | undefined {
  if (name === '' || name === '1' || name === 'all') return LOG_CATEGORIES;
  return KNOWN.has(name) ? [name] : undefined;
}

/** "addrman, bench, ..." as Core prints the list in help and errors. */
export function logCategoriesString(): string {
  return LOG_CATEGORIES.join(', ');
}

export type LogLevel = 'trace' | 'debug' | 'info' | 'warning' | 'error';
export const LOG_LEVEL_RANK: Record<LogLevel, number> = { trace: 0, debug: 1, info: 2, warning: 3, error: 4 };
/** Levels -loglevel accepts. */
export const SELECTABLE_LOG_LEVELS: readonly LogLevel[] = ['info', 'debug', 'trace'];
