/**
 * The requests the differential suite sends to both nodes, generated from what the chain
 * holds: every RPC method both nodes serve in its argument forms (positional, named,
 * defaults, wrong types, missing and unknown things), every REST endpoint in every format,
 * and protocol variants (JSON-RPC 1.0/1.1/2.0, batches, odd ids). Pure: facts in, requests out.
 */
import { fromHex, hash160, hashToHex, parseTransaction, Transaction } from '../../src/primitives/index.js';
import { encodePsbt, psbtFromTransaction } from '../../src/psbt/index.js';
import { decodeSecret, encodeAddress, payToPubkeyHashScript } from '../../src/script/index.js';
import { getPublicKey } from '@noble/secp256k1';
import type { RichChain } from './rich-chain.js';

export interface DiffRequest {
  /** What the report calls it (method or endpoint with its form). */
  readonly label: string;
  /** Category for the summary (the RPC method, or the REST endpoint). */
  readonly group: string;
  readonly method: 'GET' | 'POST';
  readonly path: string;
  readonly body?: string;
  /** RPC requests carry the credentials; REST ones do not. */
  readonly auth: boolean;
}

/** What the reference node says about the replayed chain. */
export interface ChainFacts {
  readonly chain: RichChain;
  readonly height: number;
  /** Active-chain block hashes by height. */
  readonly hashes: readonly string[];
  /** Blocks of the stale branch. */
  readonly staleHashes: readonly string[];
  /** Confirmed txids with their block hash (a sample across the chain, every block's coinbase included). */
  readonly confirmed: readonly { txid: string; blockhash: string; hex: string; outputs: number }[];
  /** Pool txids and raw transactions. */
  readonly pool: readonly { txid: string; hex: string; outputs: number }[];
  /** Output scripts seen in the chain (hex), one per script type. */
  readonly scripts: readonly string[];
}

const ZERO_HASH = '0'.repeat(64);
const UNKNOWN_HASH = 'f'.repeat(64);

/** Every RPC method the suite calls, besides the ones `help` lists for both (used for help <method>). */
export const COMPARED_METHODS_WITHOUT_ARGS = [
  'getbestblockhash',
  'getblockchaininfo',
  'getblockcount',
  'getchaintips',
  'getdifficulty',
  'getmempoolinfo',
  'getmininginfo',
  'getnetworkinfo',
  'getconnectioncount',
  'getpeerinfo',
  'listbanned',
  'getaddednodeinfo',
  'getnodeaddresses',
  'getindexinfo',
  'getdeploymentinfo',
  'getchaintxstats',
  'getnetworkhashps',
  'getprioritisedtransactions',
  'uptime',
  'getrpcinfo',
  'getmemoryinfo',
  'logging',
  'getnettotals',
  'getaddrmaninfo',
  'getchainstates',
];

export function catalogue(facts: ChainFacts, helpMethods: readonly string[]): DiffRequest[] {
  const out: DiffRequest[] = [];
  let id = 0;
  const rpc = (method: string, params: unknown, form = ''): void => {
    const body = JSON.stringify({ jsonrpc: '1.0', id: `d${id++}`, method, params });
    out.push({ label: `${method} ${form || JSON.stringify(params)}`.slice(0, 160), group: method, method: 'POST', path: '/', body, auth: true });
  };
  const rest = (path: string, group: string): void => {
    out.push({ label: `GET ${path}`.slice(0, 160), group, method: 'GET', path, auth: false });
  };
  const raw = (label: string, body: string): void => {
    out.push({ label, group: 'json-rpc protocol', method: 'POST', path: '/', body, auth: true });
  };
  const all = [...facts.hashes, ...facts.staleHashes];
  const tipHash = facts.hashes[facts.height]!;

  for (const method of COMPARED_METHODS_WITHOUT_ARGS) rpc(method, []);
  for (const method of helpMethods) rpc('help', [method]);
  rpc('help', []);
  rpc('help', ['nosuchmethod']);

  // Blocks, in every verbosity and argument form.
  for (const hash of all) {
    for (const verbosity of [0, 1, 2, 3]) rpc('getblock', [hash, verbosity]);
    rpc('getblock', [hash]);
    rpc('getblockheader', [hash]);
    rpc('getblockheader', [hash, false]);
    rpc('getblockfilter', [hash]);
    rpc('getblockstats', [hash]);
    rpc('getdeploymentinfo', [hash]);
    rpc('getchaintxstats', [5, hash]);
    for (const format of ['bin', 'hex', 'json']) {
      rest(`/rest/block/${hash}.${format}`, 'rest block');
      rest(`/rest/block/notxdetails/${hash}.${format}`, 'rest block/notxdetails');
      rest(`/rest/headers/${hash}.${format}?count=5`, 'rest headers');
      rest(`/rest/blockfilter/basic/${hash}.${format}`, 'rest blockfilter');
      rest(`/rest/blockfilterheaders/basic/${hash}.${format}?count=3`, 'rest blockfilterheaders');
    }
    rest(`/rest/spenttxouts/${hash}.json`, 'rest spenttxouts');
    rest(`/rest/deploymentinfo/${hash}.json`, 'rest deploymentinfo');
  }
  const someHash = facts.hashes[Math.floor(facts.height / 2)]!;
  rpc('getblock', [someHash, true], 'verbosity true');
  rpc('getblock', [someHash, false], 'verbosity false');
  rpc('getblock', [someHash, 1.0], 'verbosity 1.0');
  rpc('getblock', [someHash, 4]);
  rpc('getblock', [someHash, '1']);
  rpc('getblock', { blockhash: someHash, verbosity: 2 }, 'named');
  rpc('getblock', { blockhash: someHash }, 'named, default verbosity');
  rpc('getblock', { hash: someHash }, 'named, unknown name');
  rpc('getblock', []);
  rpc('getblock', ['00']);
  rpc('getblock', [UNKNOWN_HASH]);
  rpc('getblock', [someHash.toUpperCase()]);
  rpc('getblockheader', [UNKNOWN_HASH]);
  rpc('getblockheader', { blockhash: someHash, verbose: false }, 'named');
  for (let height = 0; height <= facts.height; height++) {
    rpc('getblockhash', [height]);
    for (const format of ['bin', 'hex', 'json']) if (height % 10 === 0) rest(`/rest/blockhashbyheight/${height}.${format}`, 'rest blockhashbyheight');
    if (height > 0 && height % 4 === 0) rpc('getblockstats', [height]);
  }
  rpc('getblockhash', [-1]);
  rpc('getblockhash', [facts.height + 1]);
  rpc('getblockhash', ['1']);
  rpc('getblockhash', { height: 3 }, 'named');
  rpc('getblockstats', [facts.height, ['txs', 'avgfee', 'maxfeerate', 'utxo_increase']]);
  rpc('getblockstats', { hash_or_height: facts.height, stats: ['height', 'total_out'] }, 'named');
  rpc('getblockstats', [facts.height + 1]);
  rpc('getblockstats', [facts.height, ['nosuchstat']]);
  rpc('getblockstats', [-1]);
  rpc('getblockstats', [UNKNOWN_HASH]);
  for (const odd of [3.5, 1e10, true, [1], null]) rpc('getblockstats', [odd, ['height']]);
  rpc('getchaintxstats', [facts.height + 5]);
  rpc('getchaintxstats', [0]);
  rpc('getchaintxstats', [10, UNKNOWN_HASH]);
  rpc('getdeploymentinfo', [UNKNOWN_HASH]);
  rpc('getblockfilter', [tipHash, 'nosuchfilter']);
  rpc('getblockfilter', [UNKNOWN_HASH]);
  for (const count of [1, 10, 2000, 2001, 0]) {
    rest(`/rest/headers/${facts.hashes[0]}.json?count=${count}`, 'rest headers');
    rest(`/rest/headers/${facts.hashes[0]}.bin?count=${count}`, 'rest headers');
  }
  rest(`/rest/headers/5/${facts.hashes[0]}.hex`, 'rest headers (deprecated form)');
  rest(`/rest/headers/${facts.hashes[0]}.json`, 'rest headers');
  rest(`/rest/headers/${facts.hashes[0]}.json?count=abc`, 'rest headers');
  rest(`/rest/block/${UNKNOWN_HASH}.json`, 'rest block');
  rest(`/rest/block/${someHash}.xml`, 'rest block');
  rest(`/rest/block/${someHash}`, 'rest block');
  rest(`/rest/block/nothex.json`, 'rest block');
  rest('/rest/blockhashbyheight/-1.json', 'rest blockhashbyheight');
  rest(`/rest/blockhashbyheight/${facts.height + 1}.json`, 'rest blockhashbyheight');
  rest('/rest/blockhashbyheight/abc.json', 'rest blockhashbyheight');
  for (const format of ['json', 'bin', 'hex']) rest(`/rest/chaininfo.${format}`, 'rest chaininfo');
  rest('/rest/deploymentinfo.json', 'rest deploymentinfo');
  rest('/rest/nosuchendpoint', 'rest unknown');
  rest('/', 'rest unknown');

  // Transactions: confirmed ones (with and without the block hash), pool ones.
  for (const tx of facts.confirmed) {
    rpc('getrawtransaction', [tx.txid]);
    rpc('getrawtransaction', [tx.txid, 1]);
    rpc('getrawtransaction', [tx.txid, 2]);
    rpc('getrawtransaction', [tx.txid, 1, tx.blockhash]);
    rpc('decoderawtransaction', [tx.hex]);
    rpc('gettxoutproof', [[tx.txid]]);
    rpc('gettxoutproof', [[tx.txid], tx.blockhash]);
    for (let vout = 0; vout < Math.min(tx.outputs, 3); vout++) {
      rpc('gettxout', [tx.txid, vout]);
      rpc('gettxout', [tx.txid, vout, false]);
      rest(`/rest/getutxos/${tx.txid}-${vout}.json`, 'rest getutxos');
      rest(`/rest/getutxos/checkmempool/${tx.txid}-${vout}.hex`, 'rest getutxos');
    }
    for (const format of ['bin', 'hex', 'json']) rest(`/rest/tx/${tx.txid}.${format}`, 'rest tx');
  }
  for (const tx of facts.confirmed.slice(-3)) psbtLifeCycle(rpc, tx.hex);
  for (const tx of facts.pool) {
    rpc('getrawtransaction', [tx.txid, 1]);
    rpc('getrawtransaction', [tx.txid, 2]);
    rpc('getmempoolentry', [tx.txid]);
    rpc('getmempoolcluster', [tx.txid]);
    rpc('getmempoolancestors', [tx.txid]);
    rpc('getmempoolancestors', [tx.txid, true]);
    rpc('getmempooldescendants', [tx.txid, true]);
    rpc('decoderawtransaction', [tx.hex]);
    rpc('testmempoolaccept', [[tx.hex]]);
    rpc('sendrawtransaction', [tx.hex]);
    rpc('combinerawtransaction', [[tx.hex]]);
    rpc('combinerawtransaction', [[tx.hex, tx.hex]]);
    // Without keys: the inputs' own signatures are checked and kept (the chain's are signed by bitcoind's wallet).
    rpc('signrawtransactionwithkey', [tx.hex, []]);
    rpc('signrawtransactionwithkey', [tx.hex, [MESSAGE_WIF], null, 'NONE']);
    psbtLifeCycle(rpc, tx.hex);
    for (const input of parseTransaction(fromHex(tx.hex)).inputs) {
      rpc('gettxspendingprevout', [[{ txid: hashToHex(input.prevout.txid), vout: input.prevout.vout }], { return_spending_tx: true }]);
    }
    rpc('gettxspendingprevout', [Array.from({ length: tx.outputs }, (_, vout) => ({ txid: tx.txid, vout }))]);
    for (let vout = 0; vout < tx.outputs; vout++) {
      rpc('gettxout', [tx.txid, vout]);
      rpc('gettxout', [tx.txid, vout, false]);
      rest(`/rest/getutxos/checkmempool/${tx.txid}-${vout}.json`, 'rest getutxos');
    }
    rest(`/rest/tx/${tx.txid}.json`, 'rest tx');
  }
  const aTx = facts.confirmed[facts.confirmed.length - 1]!;
  rpc('getrawtransaction', [UNKNOWN_HASH]);
  rpc('getrawtransaction', [aTx.txid, 3]);
  rpc('getrawtransaction', [aTx.txid, true]);
  rpc('getrawtransaction', { txid: aTx.txid, verbosity: 1 }, 'named');
  rpc('getrawtransaction', [aTx.txid, 1, UNKNOWN_HASH]);
  rpc('gettxout', [aTx.txid, -1]);
  rpc('gettxout', [UNKNOWN_HASH, 0]);
  rpc('getmempoolentry', [aTx.txid]);
  rpc('getmempoolcluster', [aTx.txid]);
  rpc('getmempoolcluster', ['00']);
  rpc('decoderawtransaction', ['00']);
  rpc('decoderawtransaction', [aTx.hex, true]);
  rpc('decoderawtransaction', [aTx.hex, false]);
  rpc('sendrawtransaction', [aTx.hex]);
  rpc('testmempoolaccept', [facts.pool.map((t) => t.hex)]);
  rpc('testmempoolaccept', [[]]);
  const utxoPath = facts.confirmed.slice(0, 15).map((t) => `${t.txid}-0`).join('/');
  rest(`/rest/getutxos/${utxoPath}.json`, 'rest getutxos');
  rest(`/rest/getutxos/checkmempool/${utxoPath}.bin`, 'rest getutxos');
  rest(`/rest/getutxos/${utxoPath}/${aTx.txid}-1.json`, 'rest getutxos');
  rest(`/rest/tx/${UNKNOWN_HASH}.json`, 'rest tx');

  // The pool as a whole.
  rpc('getrawmempool', []);
  rpc('getrawmempool', [true]);
  rpc('getrawmempool', [false, true]);
  rpc('getrawmempool', [true, true]);
  rest('/rest/mempool/info.json', 'rest mempool');
  rest('/rest/mempool/contents.json', 'rest mempool');
  rest('/rest/mempool/contents.json?verbose=false', 'rest mempool');
  rest('/rest/mempool/contents.json?verbose=false&mempool_sequence=true', 'rest mempool');
  rest('/rest/mempool/contents.json?verbose=true&mempool_sequence=true', 'rest mempool');
  rest('/rest/mempool/info.bin', 'rest mempool');

  // The UTXO set.
  for (const hashType of ['hash_serialized_3', 'muhash', 'none']) rpc('gettxoutsetinfo', [hashType]);
  rpc('gettxoutsetinfo', ['hash_serialized_3', facts.height - 1]);
  rpc('gettxoutsetinfo', ['nosuchtype']);
  rpc('scantxoutset', ['start', facts.chain.descriptors]);
  rpc('scantxoutset', ['status']);
  rpc('scantxoutset', ['abort']);
  rpc('scantxoutset', ['start', [`addr(${facts.chain.addresses.bech32})`]]);

  // Block filters and descriptor activity.
  const descriptors = facts.chain.descriptors;
  const recent = facts.hashes.slice(-12);
  rpc('scanblocks', ['start', descriptors]);
  rpc('scanblocks', ['start', descriptors, 0, facts.height, 'basic', { filter_false_positives: true }]);
  rpc('scanblocks', { action: 'start', scanobjects: [`addr(${facts.chain.addresses.bech32})`], start_height: facts.height - 20, filter_false_positives: true }, 'named');
  rpc('scanblocks', ['start', descriptors, facts.height + 1]);
  rpc('scanblocks', ['start', descriptors, 5, 4]);
  rpc('scanblocks', ['start', descriptors, 0, 0, 'nosuchfilter']);
  rpc('scanblocks', ['start']);
  rpc('scanblocks', ['status']);
  rpc('scanblocks', ['abort']);
  rpc('scanblocks', ['nosuchaction']);
  rpc('getdescriptoractivity', [recent, descriptors]);
  rpc('getdescriptoractivity', [[...recent].reverse(), descriptors, false]);
  rpc('getdescriptoractivity', { blockhashes: [facts.hashes[facts.height]], scanobjects: descriptors, include_mempool: true }, 'named');
  rpc('getdescriptoractivity', [[], descriptors]);
  rpc('getdescriptoractivity', [[UNKNOWN_HASH], descriptors]);
  rpc('getdescriptoractivity', [[ZERO_HASH.slice(2)], descriptors]);
  if (facts.staleHashes.length > 0) rpc('getdescriptoractivity', [[facts.staleHashes[0]], descriptors]);
  rpc('getdescriptoractivity', [recent]);

  // Scripts, descriptors and addresses.
  for (const script of [...facts.scripts, ...facts.chain.bareScripts, '6a04deadbeef', '', 'ac', '00']) rpc('decodescript', [script]);
  for (const desc of facts.chain.descriptors) {
    rpc('getdescriptorinfo', [desc]);
    rpc('getdescriptorinfo', [desc.slice(0, desc.indexOf('#'))]);
    rpc('deriveaddresses', [desc]);
  }
  rpc('getdescriptorinfo', ['nonsense']);
  rpc('deriveaddresses', ['pk(00)']);
  for (const address of Object.values(facts.chain.addresses)) rpc('validateaddress', [address]);
  rpc('validateaddress', ['bcrt1qinvalid']);
  rpc('validateaddress', ['1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN2']);
  const keys = facts.chain.descriptors.flatMap((d) => [...d.matchAll(/\b0[23][0-9a-f]{64}\b/g)].map((m) => m[0])).slice(0, 3);
  rpc('createmultisig', [2, keys]);
  rpc('createmultisig', [1, keys, 'bech32']);
  rpc('createmultisig', [1, keys, 'p2sh-segwit']);
  rpc('createmultisig', [4, keys]);
  rpc('createrawtransaction', [[{ txid: aTx.txid, vout: 0 }], [{ [facts.chain.addresses.bech32!]: 0.1 }]]);
  rpc('createrawtransaction', [[{ txid: aTx.txid, vout: 0, sequence: 5 }], [{ data: 'deadbeef' }], 10, false, 3]);
  rpc('createrawtransaction', [[], {}]);
  messageRequests(rpc);
  idleFeatureRequests(rpc);

  // Spends the pool knows of, and partially signed transactions it helps complete.
  const spentOutpoints = facts.confirmed.slice(0, 20).map((t) => ({ txid: t.txid, vout: 0 }));
  rpc('gettxspendingprevout', [spentOutpoints]);
  rpc('gettxspendingprevout', [spentOutpoints, { return_spending_tx: true }]);
  rpc('gettxspendingprevout', { outputs: spentOutpoints.slice(0, 3), return_spending_tx: true }, 'named');
  rpc('gettxspendingprevout', [spentOutpoints, { mempool_only: false }]);
  rpc('gettxspendingprevout', [[]]);
  rpc('gettxspendingprevout', [[{ txid: '00', vout: 0 }]]);
  rpc('gettxspendingprevout', [[{ txid: aTx.txid, vout: -1 }]]);
  rpc('gettxspendingprevout', [[{ txid: aTx.txid }]]);
  rpc('gettxspendingprevout', [[{ txid: aTx.txid, vout: 0, x: 1 }]]);
  rpc('gettxspendingprevout', [[5]]);
  rpc('gettxspendingprevout', [[{ txid: aTx.txid, vout: 0 }], { foo: true }]);
  rpc('combinerawtransaction', [[aTx.hex]]);
  rpc('combinerawtransaction', [facts.pool.slice(0, 3).map((t) => t.hex)]);
  rpc('combinerawtransaction', [[]]);
  rpc('combinerawtransaction', [['zz']]);
  rpc('combinerawtransaction', [[aTx.hex, 5]]);
  rpc('createrawtransaction', [[{ txid: aTx.txid }], [{ data: '00' }]]);

  // Fees and mining.
  for (const target of [1, 2, 6, 144, 1008, 0, 1009]) rpc('estimatesmartfee', [target]);
  rpc('estimatesmartfee', [6, 'conservative']);
  rpc('estimatesmartfee', [6, 'nosuchmode']);
  rpc('estimaterawfee', [6]);
  rpc('getnetworkhashps', [120]);
  rpc('getnetworkhashps', [-1, 50]);
  rpc('getblocktemplate', [{ rules: ['segwit'] }]);
  rpc('getblocktemplate', [{}]);
  rpc('submitblock', ['00']);
  rpc('submitheader', ['00']);
  rpc('prioritisetransaction', [UNKNOWN_HASH, 1, 5]);

  // The JSON-RPC protocol itself.
  raw('id 1.50', '{"jsonrpc":"1.0","id":1.50,"method":"getblockcount","params":[]}');
  raw('id null', '{"jsonrpc":"1.0","id":null,"method":"getblockcount","params":[]}');
  raw('id object', '{"jsonrpc":"1.0","id":{"a":[1,2]},"method":"getblockcount","params":[]}');
  raw('no id', '{"jsonrpc":"1.0","method":"getblockcount","params":[]}');
  raw('json-rpc 2.0', '{"jsonrpc":"2.0","id":7,"method":"getblockcount","params":[]}');
  raw('json-rpc 2.0 notification', '{"jsonrpc":"2.0","method":"getblockcount","params":[]}');
  raw('json-rpc 2.0 error', '{"jsonrpc":"2.0","id":7,"method":"nosuchmethod","params":[]}');
  raw('json-rpc 1.1 error', '{"version":"1.1","id":7,"method":"nosuchmethod","params":[]}');
  raw('batch', '[{"jsonrpc":"2.0","id":1,"method":"getblockcount"},{"jsonrpc":"1.0","id":2,"method":"getbestblockhash","params":[]},{"id":3,"method":"nosuch"}]');
  raw('empty batch', '[]');
  raw('batch with a non-object', '[1]');
  raw('not json', 'hello');
  raw('no method', '{"id":1,"params":[]}');
  raw('method not a string', '{"id":1,"method":5,"params":[]}');
  raw('params an object', '{"id":1,"method":"getblockhash","params":{"height":1}}');
  raw('params a string', '{"id":1,"method":"getblockhash","params":"1"}');
  raw('unicode method', '{"id":1,"method":"getblockcöunt","params":[]}');
  raw('big id', '{"id":123456789012345678901234567890,"method":"getblockcount","params":[]}');
  raw('negative zero id', '{"id":-0,"method":"getblockcount","params":[]}');
  raw('exponent id', '{"id":1e3,"method":"getblockcount","params":[]}');
  return out;
}

/** A regtest key bitcoind signed "hello" with (the signature is the input, not an expected answer). */
/** The PSBT methods over a transaction's inputs and outputs (its signatures stripped): every stage, joined with itself (refused). */
function psbtLifeCycle(rpc: (method: string, params: unknown[]) => void, hex: string): void {
  const tx = parseTransaction(fromHex(hex));
  const unsigned = new Transaction({ version: tx.version, inputs: tx.inputs.map((i) => ({ ...i, scriptSig: new Uint8Array(0), witness: [] })), outputs: tx.outputs, locktime: tx.locktime });
  const psbt = encodePsbt(psbtFromTransaction(unsigned));
  rpc('converttopsbt', [hex]);
  rpc('converttopsbt', [hex, true]);
  for (const method of ['decodepsbt', 'analyzepsbt', 'utxoupdatepsbt', 'finalizepsbt']) rpc(method, [psbt]);
  rpc('descriptorprocesspsbt', [psbt, [`wpkh(${MESSAGE_WIF})`, `pkh(${MESSAGE_WIF})`]]);
  rpc('combinepsbt', [[psbt, psbt]]);
  rpc('joinpsbts', [[psbt, psbt]]);
}

const MESSAGE_WIF = 'cVpF924EspNh8KjYsfhgY96mmxvT6DgdWiTYMtMjuM74hJaU5psW';
const MESSAGE_SIGNATURE = 'IKC+Ijl/SSZ+8GIt8RfXjZa/tzuYFEzIzAyxpvUf48D8AjUYXGAZKz3JfJVta+NUzDlZdMmJIa5rLtdE0ChWEfs=';

/** The private broadcast queue, ZeroMQ publishers and external signers, none of which either node has here. */
function idleFeatureRequests(rpc: (method: string, params: unknown, form?: string) => void): void {
  rpc('getprivatebroadcastinfo', []);
  rpc('getprivatebroadcastinfo', ['extra']);
  for (const id of ['00', 'zz'.repeat(32), '11'.repeat(32), '']) rpc('abortprivatebroadcast', [id]);
  rpc('abortprivatebroadcast', { id: '22'.repeat(32) }, 'named');
  rpc('abortprivatebroadcast', []);
  rpc('abortprivatebroadcast', [5]);
  rpc('getzmqnotifications', []);
  rpc('getzmqnotifications', [1]);
  rpc('enumeratesigners', []);
}

function messageRequests(rpc: (method: string, params: unknown, form?: string) => void): void {
  const secret = decodeSecret(MESSAGE_WIF, 'regtest')!;
  const address = encodeAddress(payToPubkeyHashScript(hash160(getPublicKey(secret.secret, secret.compressed))), 'regtest')!;
  for (const message of ['hello', '', 'ünïcødé', 'x'.repeat(300)]) rpc('signmessagewithprivkey', [MESSAGE_WIF, message]);
  rpc('signmessagewithprivkey', { privkey: MESSAGE_WIF, message: 'named' }, 'named');
  rpc('signmessagewithprivkey', ['notakey', 'hello']);
  rpc('verifymessage', [address, MESSAGE_SIGNATURE, 'hello']);
  rpc('verifymessage', [address, MESSAGE_SIGNATURE, 'other']);
  rpc('verifymessage', { address, signature: MESSAGE_SIGNATURE, message: 'hello' }, 'named');
  for (const signature of ['', 'AAAA', 'AB==', 'not base64']) rpc('verifymessage', [address, signature, 'hello']);
  for (const other of ['bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080', '2MzQwSSnBHWHqSAqtTVQ6v47XtaisrJa1Vc', 'notanaddress']) {
    rpc('verifymessage', [other, MESSAGE_SIGNATURE, 'hello']);
  }
}
