/**
 * Every option bitcoind v31 accepts (init.cpp, init/common.cpp, chainparamsbase.cpp,
 * the wallet's options, hidden and ZMQ names), plus tsbtcd's own. A name not here is an
 * init error on the command line and a logged warning in bitcoin.conf, as in Core.
 * Options tsbtcd has no subsystem for are accepted and have no effect.
 */

/** Honoured for a non-main chain only from its [section] or the command line. */
export const NETWORK_ONLY = 1;
/** -noNAME is an error. */
export const DISALLOW_NEGATION = 2;
/** -NAME without a value is an error. */
export const DISALLOW_ELISION = 4;
/** Value shown as **** when arguments are logged. */
export const SENSITIVE = 8;

const plain = [
  // Options
  'help', 'h', '?', 'help-debug', 'version', 'alertnotify', 'assumevalid', 'blocksdir', 'blocksxor', 'fastprune',
  'blocknotify', 'blockreconstructionextratxn', 'blocksonly', 'coinstatsindex', 'conf', 'dbbatchsize', 'dbcache',
  'includeconf', 'allowignoredconf', 'loadblock', 'maxmempool', 'maxorphantx', 'mempoolexpiry', 'minimumchainwork',
  'par', 'persistmempool', 'persistmempoolv1', 'pid', 'prune', 'reindex', 'reindex-chainstate', 'settings',
  'startupnotify', 'shutdownnotify', 'txindex', 'txospenderindex', 'blockfilterindex', 'daemon', 'daemonwait',
  // Connection
  'asmap', 'bantime', 'cjdnsreachable', 'discover', 'dns', 'dnsseed', 'externalip', 'fixedseeds', 'forcednsseed',
  'listen', 'listenonion', 'maxconnections', 'maxreceivebuffer', 'maxsendbuffer', 'maxuploadtarget', 'onion',
  'i2psam', 'i2pacceptincoming', 'onlynet', 'v2transport', 'peerbloomfilters', 'peerblockfilters',
  'txreconciliation', 'proxyrandomize', 'seednode', 'networkactive', 'timeout', 'peertimeout', 'torcontrol',
  'upnp', 'natpmp', 'whitebind', 'whitelist', 'privatebroadcast',
  // Wallet
  'addresstype', 'avoidpartialspends', 'changetype', 'consolidatefeerate', 'disablewallet', 'discardfee',
  'fallbackfee', 'keypool', 'maxapsfee', 'maxtxfee', 'mintxfee', 'paytxfee', 'signer', 'spendzeroconfchange',
  'txconfirmtarget', 'walletbroadcast', 'walletnotify', 'walletrbf', 'dblogsize', 'flushwallet', 'privdb',
  'walletrejectlongchains', 'walletcrosschain', 'unsafesqlitesync', 'swapbdbendian',
  // ZeroMQ (hidden in a build without it, still accepted)
  'zmqpubhashblock', 'zmqpubhashtx', 'zmqpubrawblock', 'zmqpubrawtx', 'zmqpubsequence', 'zmqpubhashblockhwm',
  'zmqpubhashtxhwm', 'zmqpubrawblockhwm', 'zmqpubrawtxhwm', 'zmqpubsequencehwm',
  // Debugging and testing
  'checkblocks', 'checklevel', 'checkblockindex', 'checkaddrman', 'checkmempool', 'checkpoints', 'deprecatedrpc',
  'stopafterblockimport', 'stopatheight', 'limitancestorcount', 'limitancestorsize', 'limitdescendantcount',
  'limitdescendantsize', 'test', 'capturemessages', 'mocktime', 'maxsigcachesize', 'maxtipage', 'printpriority',
  'uacomment', 'debuglogfile', 'debug', 'debugexclude', 'logips', 'logtimestamps', 'logthreadnames',
  'logsourcelocations', 'logtimemicros', 'loglevelalways', 'printtoconsole', 'shrinkdebugfile', 'logratelimit',
  // Chain selection
  'chain', 'regtest', 'testactivationheight', 'testnet', 'testnet4', 'vbparams', 'signet', 'signetchallenge',
  'signetseednode',
  // Node relay and block creation
  'acceptnonstdtxn', 'incrementalrelayfee', 'dustrelayfee', 'acceptstalefeeestimates', 'bytespersigop',
  'datacarrier', 'datacarriersize', 'limitclustercount', 'limitclustersize', 'permitbaremultisig', 'minrelaytxfee', 'whitelistforcerelay', 'whitelistrelay',
  'blockmaxweight', 'blockreservedweight', 'blockmintxfee', 'blockversion',
  // RPC server
  'rest', 'rpcallowip', 'rpcdoccheck', 'rpccookiefile', 'rpccookieperms', 'rpcservertimeout', 'rpcthreads',
  'rpcwhitelist', 'rpcwhitelistdefault', 'rpcworkqueue', 'server', 'ipcbind',
  // Hidden (GUI and debugging)
  'dbcrashratio', 'forcecompactdb', 'choosedatadir', 'lang', 'min', 'resetguisettings', 'splash', 'uiplatform',
  // Named in the process contract (daemon.md) though not a Core option.
  'prevoutfetchthreads',
  // tsbtcd's own: the number of HTTP front-end processes, a test-only warm-up delay (ms),
  // the signature backend (native libsecp256k1 or @noble/secp256k1), the address index
  // and the Esplora-compatible HTTP API.
  'rpcfrontends', 'testwarmupms', 'sigbackend', 'addressindex', 'esplora', 'websocket',
];

const flagged: Record<string, number> = {
  addnode: NETWORK_ONLY,
  bind: NETWORK_ONLY,
  connect: NETWORK_ONLY,
  port: NETWORK_ONLY,
  rpcbind: NETWORK_ONLY,
  rpcport: NETWORK_ONLY,
  wallet: NETWORK_ONLY,
  walletdir: NETWORK_ONLY,
  datadir: DISALLOW_NEGATION,
  loglevel: DISALLOW_NEGATION | DISALLOW_ELISION,
  proxy: DISALLOW_ELISION,
  rpcauth: SENSITIVE,
  rpcpassword: SENSITIVE,
  rpcuser: SENSITIVE,
  torpassword: SENSITIVE,
};

const TABLE = new Map<string, number>([...plain.map((n): [string, number] => [n, 0]), ...Object.entries(flagged)]);

/** The option's flags, or undefined for an unknown option. */
export function optionFlags(name: string): number | undefined {
  return TABLE.get(name);
}

export function networkOnlyOptions(): string[] {
  return [...TABLE].filter(([, f]) => f & NETWORK_ONLY).map(([n]) => n);
}
