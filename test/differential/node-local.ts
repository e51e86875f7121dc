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
  { group: 'getnetworkinfo', path: 'subversion', reason: "the product's BIP14 user agent: /tsbtcd:<version>/ where Core says /Satoshi:<version>/" },
];

/**
 * Answers compared through a view of both: the product's own name, and help's listing,
 * which names methods only one node serves (the report prints those as missing methods;
 * every method both serve is compared by its own `help <method>` and its calls).
 */
export interface AnswerView {
  readonly group: string;
  readonly reason: string;
  /** Both JSON-RPC results as compared. */
  readonly view: (ours: unknown, theirs: unknown) => [unknown, unknown];
}

const PRODUCT_NAME = /tsbtcd/g;

export const ANSWER_VIEWS: readonly AnswerView[] = [
  {
    group: 'help',
    reason: 'the product name: help stop says "tsbtcd" where Core says "Bitcoin Core"',
    view: (ours, theirs) => [typeof ours === 'string' ? ours.replace(PRODUCT_NAME, 'Bitcoin Core') : ours, theirs],
  },
  {
    group: 'help',
    reason: "help's listing is compared on the methods both serve",
    view: (ours, theirs) => {
      if (typeof ours !== 'string' || typeof theirs !== 'string' || !ours.startsWith('== ')) return [ours, theirs];
      const methods = (listing: string) => new Set(listing.split('\n').map((line) => line.split(' ')[0]!));
      const [a, b] = [methods(ours), methods(theirs)];
      return [commonListing(ours, b), commonListing(theirs, a)];
    },
  },
];

/** A help listing without the methods `other` lacks, and without sections left empty. */
function commonListing(listing: string, other: ReadonlySet<string>): string {
  return listing
    .split('\n\n')
    .map((section) => section.split('\n').filter((line) => line.startsWith('== ') || other.has(line.split(' ')[0]!)))
    .filter((lines) => lines.length > 1)
    .map((lines) => lines.join('\n'))
    .join('\n\n');
}

/** tsbtcd's and bitcoind's results as compared, after every view of the group. */
export function viewAnswers(group: string, ours: unknown, theirs: unknown): [unknown, unknown] {
  let pair: [unknown, unknown] = [ours, theirs];
  for (const v of ANSWER_VIEWS) if (v.group === group) pair = v.view(...pair);
  return pair;
}

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
