/**
 * Fields whose values belong to the node that answers rather than to the chain: they are
 * compared for JSON type only, each with the reason it may differ. Paths address a
 * JSON-RPC result (or a REST JSON body) member by member; `*` is any array element or key.
 */
export interface NodeLocalField {
  /** The RPC method or REST endpoint group the path applies to. */
  readonly group: string;
  readonly path: string;
  readonly reason: string;
}

export const NODE_LOCAL_FIELDS: readonly NodeLocalField[] = [
  { group: 'getblockchaininfo', path: 'size_on_disk', reason: 'bytes of the block files on disk: Core writes blk/rev files, tsbtcd LMDB' },
  { group: 'rest chaininfo', path: 'size_on_disk', reason: 'as getblockchaininfo' },
  { group: 'getmempoolinfo', path: 'usage', reason: "the process's memory accounting of its pool structures" },
  { group: 'rest mempool', path: 'usage', reason: 'as getmempoolinfo' },
  { group: 'getchainstates', path: 'chainstates.*.coins_db_cache_bytes', reason: "the node's -dbcache split (bitcoind v31's default -dbcache depends on the machine's memory)" },
  { group: 'getchainstates', path: 'chainstates.*.coins_tip_cache_bytes', reason: 'as coins_db_cache_bytes' },
  { group: 'gettxoutsetinfo', path: 'disk_size', reason: 'size of the chainstate database on disk' },
  { group: 'uptime', path: '', reason: 'seconds since the process started' },
  { group: 'getrpcinfo', path: 'active_commands.*.duration', reason: 'microseconds the call has run' },
  { group: 'getrpcinfo', path: 'logpath', reason: "the node's own data directory" },
  { group: 'getmemoryinfo', path: 'locked.*', reason: "the process's locked-memory pool" },
  { group: 'getnettotals', path: 'timemillis', reason: 'the clock when answered' },
  { group: 'getblocktemplate', path: 'longpollid', reason: "the tip hash and the node's count of pool changes since it started" },
  { group: 'getblocktemplate', path: 'curtime', reason: 'the clock when answered (mock time on both, but read a second apart possibly)' },
];

/** The value with every node-local member replaced by its JSON type name. */
export function maskNodeLocal(group: string, value: unknown): unknown {
  let masked = value;
  for (const field of NODE_LOCAL_FIELDS) if (field.group === group) masked = maskPath(masked, field.path === '' ? [] : field.path.split('.'));
  return masked;
}

function typeName(value: unknown): string {
  if (value === null) return '<null>';
  if (Array.isArray(value)) return '<array>';
  return `<${typeof value}>`;
}

function maskPath(value: unknown, path: readonly string[]): unknown {
  if (path.length === 0) return typeName(value);
  if (value === null || typeof value !== 'object') return value;
  const [head, ...rest] = path;
  if (Array.isArray(value)) return head === '*' ? value.map((v) => maskPath(v, rest)) : value;
  const obj = value as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(obj)) out[key] = head === '*' || head === key ? maskPath(v, rest) : v;
  return out;
}
