/**
 * The P2P methods of Core v31's rpc/net.cpp (getpeerinfo, getnettotals, addnode,
 * disconnectnode, getaddednodeinfo, setban, listbanned, clearbanned, setnetworkactive,
 * ping, getnodeaddresses), getblockfrompeer (rpc/blockchain.cpp) and the hidden
 * getorphantxs (rpc/mempool.cpp), with Core's help texts, argument checks in Core's order,
 * error codes and key order. They read and drive the node's network layer through
 * PeerNetwork; while it is not running every one of them answers -31, as Core does
 * without a connection manager.
 */
import {
  RPC_CLIENT_INVALID_IP_OR_SUBNET,
  RPC_CLIENT_NODE_ALREADY_ADDED,
  RPC_CLIENT_NODE_NOT_ADDED,
  RPC_CLIENT_NODE_NOT_CONNECTED,
  RPC_CLIENT_P2P_DISABLED,
  RPC_INVALID_PARAMETER,
  RPC_INVALID_PARAMS,
  RPC_CLIENT_NODE_CAPACITY_REACHED,
  RPC_MISC_ERROR,
  RPC_TYPE_ERROR,
  RpcError,
} from './errors.js';
import { fullHelp } from './help.js';
import { doubleJson } from './number-format.js';
import { NETWORK_NAMES, servicesHex, servicesNames } from './network-methods.js';
import type { PeerInfoRecord, PeerNetwork } from './peer-network.js';
import { defineRpcMethod } from './registry.js';
import { parseVerbosity } from './value-parse.js';
import { helpExampleCli, helpExampleRpc, type RpcMethod, type RpcResultSpec } from './spec.js';
import { amountJson, parseHash } from './values.js';
import { canonicalAddress, fromHex, isHex, parseSubnet, subnetMatches, type SubnetSpec } from '../primitives/index.js';

/** Core's UNIX_EPOCH_TIME, as result descriptions spell it. */
const UNIX_EPOCH_TIME = 'UNIX epoch time';

/** NetPermissions' NET_PERMISSIONS_DOC. */
const NET_PERMISSIONS_DOC = [
  'bloomfilter (allow requesting BIP37 filtered blocks and transactions)',
  'noban (do not ban for misbehavior; implies download)',
  'forcerelay (relay transactions that are already in the mempool; implies relay)',
  'relay (relay even in -blocksonly mode, and unlimited transaction announcements)',
  'mempool (allow requesting BIP35 mempool contents)',
  'download (allow getheaders during IBD, no disconnect after maxuploadtarget limit)',
  'addr (responses to GETADDR avoid hitting the cache and contain random records with the most up-to-date info)',
];

/** rpc/net.cpp's CONNECTION_TYPE_DOC. */
const CONNECTION_TYPE_DOC = [
  'outbound-full-relay (default automatic connections)',
  'block-relay-only (does not relay transactions or addresses)',
  'inbound (initiated by the peer)',
  'manual (added via addnode RPC or -addnode/-connect configuration options)',
  'addr-fetch (short-lived automatic connection for soliciting addresses)',
  'feeler (short-lived automatic connection for testing addresses)',
  'private-broadcast (short-lived automatic connection for broadcasting privacy-sensitive transactions)',
];

/** rpc/net.cpp's TRANSPORT_TYPE_DOC. */
const TRANSPORT_TYPE_DOC = ['detecting (peer could be v1 or v2)', 'v1 (plaintext transport protocol)', 'v2 (BIP324 encrypted transport protocol)'];

/** Core's NET_MESSAGE_TYPE_OTHER: bytes of unknown message types. */
const NET_MESSAGE_TYPE_OTHER = '*other*';
/** Core's CMessageHeader::MESSAGE_TYPE_SIZE. */
const MESSAGE_TYPE_SIZE = 12;

/** Core's MAX_ADDNODE_CONNECTIONS. */
const MAX_ADDNODE_CONNECTIONS = 8;

/** A std::map<std::string, uint64_t> of per-message bytes as Core writes it: byte-wise key order, zeros left out. */
function perMsgJson(bytes: ReadonlyMap<string, number>): Record<string, number> {
  const out: Record<string, number> = {};
  // Message types are ASCII, where UTF-16 code-unit order is byte order.
  for (const key of [...bytes.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))) {
    const n = bytes.get(key)!;
    if (n > 0) out[key] = n;
  }
  return out;
}

/** One getpeerinfo entry in Core v31's key order. */
export function peerInfoJson(p: PeerInfoRecord, deprecatedStartingHeight: boolean): Record<string, unknown> {
  const obj: Record<string, unknown> = { id: p.id, addr: p.addr };
  // Core: only when the bind address is valid; addrlocal and mapped_as have no source here.
  if (p.addrbind !== '') obj['addrbind'] = p.addrbind;
  obj['network'] = p.network;
  obj['services'] = servicesHex(p.services);
  obj['servicesnames'] = servicesNames(p.services);
  obj['relaytxes'] = p.relaytxes;
  obj['last_inv_sequence'] = p.lastInvSequence;
  obj['inv_to_send'] = p.invToSend;
  obj['lastsend'] = p.lastsend;
  obj['lastrecv'] = p.lastrecv;
  obj['last_transaction'] = p.lastTransaction;
  obj['last_block'] = p.lastBlock;
  obj['bytessent'] = p.bytessent;
  obj['bytesrecv'] = p.bytesrecv;
  obj['conntime'] = p.conntime;
  obj['timeoffset'] = p.timeoffset;
  if (p.pingtime !== undefined) obj['pingtime'] = doubleJson(p.pingtime);
  if (p.minping !== undefined) obj['minping'] = doubleJson(p.minping);
  if (p.pingwait !== undefined) obj['pingwait'] = doubleJson(p.pingwait);
  obj['version'] = p.version;
  obj['subver'] = p.subver;
  obj['inbound'] = p.inbound;
  obj['bip152_hb_to'] = p.bip152HbTo;
  obj['bip152_hb_from'] = p.bip152HbFrom;
  if (deprecatedStartingHeight) obj['startingheight'] = p.startingheight;
  obj['presynced_headers'] = p.presyncedHeaders;
  obj['synced_headers'] = p.syncedHeaders;
  obj['synced_blocks'] = p.syncedBlocks;
  obj['inflight'] = [...p.inflight];
  obj['addr_relay_enabled'] = p.addrRelayEnabled;
  obj['addr_processed'] = p.addrProcessed;
  obj['addr_rate_limited'] = p.addrRateLimited;
  obj['permissions'] = [...p.permissions];
  obj['minfeefilter'] = amountJson(p.minfeefilter);
  obj['bytessent_per_msg'] = perMsgJson(p.bytessentPerMsg);
  obj['bytesrecv_per_msg'] = perMsgJson(p.bytesrecvPerMsg);
  obj['connection_type'] = p.connectionType;
  obj['transport_protocol_type'] = p.transportProtocolType;
  obj['session_id'] = p.sessionId;
  return obj;
}

/** UniValue::getInt<int>: an integer that fits in 32 bits, else "JSON integer out of range". */
function int32(value: number): number {
  if (!Number.isSafeInteger(value) || value < -2147483648 || value > 2147483647) throw new RpcError(RPC_MISC_ERROR, 'JSON integer out of range');
  return value;
}

/**
 * What setban add would find before banning (Core checks validity, then an existing ban,
 * then bantime): only consulted when bantime is refused, so that the refusal is not
 * reported for an address Core would have rejected first. A subnet must be banned
 * exactly (BanMan::IsBanned(CSubNet)); a single address counts as banned when any ban
 * covers it (BanMan::IsBanned(CNetAddr)).
 */
function banState(network: PeerNetwork, text: string): 'invalid' | 'exists' | undefined {
  const subnet = parseSubnet(text);
  if (!subnet) return 'invalid';
  const bans = network
    .listBanned()
    .map((b) => parseSubnet(b.address))
    .filter((s): s is SubnetSpec => s !== undefined);
  if (text.includes('/')) {
    return bans.some((b) => b.prefix === subnet.prefix && b.bytes.length === subnet.bytes.length && subnetMatches(b, subnet.bytes)) ? 'exists' : undefined;
  }
  const address = canonicalAddress(subnet.bytes);
  return bans.some((b) => subnetMatches(b, address)) ? 'exists' : undefined;
}

/** banmap_t's order (std::map<CSubNet, CBanEntry>): IPv4 before IPv6, then network bytes, then netmask. */
function compareBanned(a: string, b: string): number {
  const sa = parseSubnet(a);
  const sb = parseSubnet(b);
  if (!sa || !sb) return sa ? -1 : sb ? 1 : 0;
  if (sa.bytes.length !== sb.bytes.length) return sa.bytes.length - sb.bytes.length;
  for (let i = 0; i < sa.bytes.length; i++) if (sa.bytes[i] !== sb.bytes[i]) return sa.bytes[i]! - sb.bytes[i]!;
  return sa.prefix - sb.prefix;
}

const ORPHAN_DESCRIPTION: readonly RpcResultSpec[] = [
  { type: 'str_hex', key: 'txid', description: 'The transaction hash in hex' },
  { type: 'str_hex', key: 'wtxid', description: 'The transaction witness hash in hex' },
  { type: 'num', key: 'bytes', description: 'The serialized transaction size in bytes' },
  {
    type: 'num',
    key: 'vsize',
    description:
      'The virtual transaction size as defined in BIP 141. This is different from actual serialized size for witness transactions as witness data is discounted.',
  },
  { type: 'num', key: 'weight', description: 'The transaction weight as defined in BIP 141.' },
  { type: 'arr', key: 'from', description: '', inner: [{ type: 'num', key: 'peer_id', description: 'Peer ID' }] },
];

export function peerMethods(network: () => PeerNetwork | undefined, deprecatedRpc: (name: string) => boolean): RpcMethod[] {
  /** Core's EnsureConnman / EnsurePeerman. */
  const net = (): PeerNetwork => {
    const n = network();
    if (!n) throw new RpcError(RPC_CLIENT_P2P_DISABLED, 'Error: Peer-to-peer functionality missing or disabled');
    return n;
  };

  const getpeerinfo = defineRpcMethod({
    name: 'getpeerinfo',
    category: 'network',
    description: 'Returns data about each connected network peer as a json array of objects.',
    args: [],
    results: [
      {
        type: 'arr',
        description: '',
        inner: [
          {
            type: 'obj',
            description: '',
            inner: [
              { type: 'num', key: 'id', description: 'Peer index' },
              { type: 'str', key: 'addr', description: '(host:port) The IP address/hostname optionally followed by :port of the peer' },
              { type: 'str', key: 'addrbind', optional: true, description: '(ip:port) Bind address of the connection to the peer' },
              { type: 'str', key: 'addrlocal', optional: true, description: '(ip:port) Local address as reported by the peer' },
              { type: 'str', key: 'network', description: `Network (${[...NETWORK_NAMES, 'not_publicly_routable'].join(', ')})` },
              {
                type: 'num',
                key: 'mapped_as',
                optional: true,
                description:
                  'Mapped AS (Autonomous System) number at the end of the BGP route to the peer, used for diversifying\n' +
                  'peer selection (only displayed if the -asmap config option is set)',
              },
              { type: 'str_hex', key: 'services', description: 'The services offered' },
              {
                type: 'arr',
                key: 'servicesnames',
                description: 'the services offered, in human-readable form',
                inner: [{ type: 'str', key: 'SERVICE_NAME', description: 'the service name if it is recognised' }],
              },
              { type: 'bool', key: 'relaytxes', description: 'Whether we relay transactions to this peer' },
              { type: 'num', key: 'last_inv_sequence', description: "Mempool sequence number of this peer's last INV" },
              { type: 'num', key: 'inv_to_send', description: 'How many txs we have queued to announce to this peer' },
              { type: 'num_time', key: 'lastsend', description: `The ${UNIX_EPOCH_TIME} of the last send` },
              { type: 'num_time', key: 'lastrecv', description: `The ${UNIX_EPOCH_TIME} of the last receive` },
              { type: 'num_time', key: 'last_transaction', description: `The ${UNIX_EPOCH_TIME} of the last valid transaction received from this peer` },
              { type: 'num_time', key: 'last_block', description: `The ${UNIX_EPOCH_TIME} of the last block received from this peer` },
              { type: 'num', key: 'bytessent', description: 'The total bytes sent' },
              { type: 'num', key: 'bytesrecv', description: 'The total bytes received' },
              { type: 'num_time', key: 'conntime', description: `The ${UNIX_EPOCH_TIME} of the connection` },
              { type: 'num', key: 'timeoffset', description: 'The time offset in seconds' },
              { type: 'num', key: 'pingtime', optional: true, description: 'The last ping time in seconds, if any' },
              { type: 'num', key: 'minping', optional: true, description: 'The minimum observed ping time in seconds, if any' },
              { type: 'num', key: 'pingwait', optional: true, description: 'The duration in seconds of an outstanding ping (if non-zero)' },
              { type: 'num', key: 'version', description: 'The peer version, such as 70001' },
              { type: 'str', key: 'subver', description: 'The string version' },
              { type: 'bool', key: 'inbound', description: 'Inbound (true) or Outbound (false)' },
              { type: 'bool', key: 'bip152_hb_to', description: 'Whether we selected peer as (compact blocks) high-bandwidth peer' },
              { type: 'bool', key: 'bip152_hb_from', description: 'Whether peer selected us as (compact blocks) high-bandwidth peer' },
              {
                type: 'num',
                key: 'startingheight',
                optional: true,
                description: '(DEPRECATED, returned only if config option -deprecatedrpc=startingheight is passed) The starting height (block) of the peer',
              },
              {
                type: 'num',
                key: 'presynced_headers',
                description: 'The current height of header pre-synchronization with this peer, or -1 if no low-work sync is in progress',
              },
              { type: 'num', key: 'synced_headers', description: 'The last header we have in common with this peer' },
              { type: 'num', key: 'synced_blocks', description: 'The last block we have in common with this peer' },
              {
                type: 'arr',
                key: 'inflight',
                description: '',
                inner: [{ type: 'num', key: 'n', description: "The heights of blocks we're currently asking from this peer" }],
              },
              { type: 'bool', key: 'addr_relay_enabled', description: 'Whether we participate in address relay with this peer' },
              {
                type: 'num',
                key: 'addr_processed',
                description: 'The total number of addresses processed, excluding those dropped due to rate limiting',
              },
              { type: 'num', key: 'addr_rate_limited', description: 'The total number of addresses dropped due to rate limiting' },
              {
                type: 'arr',
                key: 'permissions',
                description: 'Any special permissions that have been granted to this peer',
                inner: [{ type: 'str', key: 'permission_type', description: NET_PERMISSIONS_DOC.join(',\n') + '.\n' }],
              },
              { type: 'num', key: 'minfeefilter', description: 'The minimum fee rate for transactions this peer accepts' },
              {
                type: 'obj_dyn',
                key: 'bytessent_per_msg',
                description: '',
                inner: [
                  {
                    type: 'num',
                    key: 'msg',
                    description:
                      'The total bytes sent aggregated by message type\n' +
                      'When a message type is not listed in this json object, the bytes sent are 0.\n' +
                      'Only known message types can appear as keys in the object.',
                  },
                ],
              },
              {
                type: 'obj_dyn',
                key: 'bytesrecv_per_msg',
                description: '',
                inner: [
                  {
                    type: 'num',
                    key: 'msg',
                    description:
                      'The total bytes received aggregated by message type\n' +
                      'When a message type is not listed in this json object, the bytes received are 0.\n' +
                      'Only known message types can appear as keys in the object and all bytes received\n' +
                      `of unknown message types are listed under '${NET_MESSAGE_TYPE_OTHER}'.`,
                  },
                ],
              },
              {
                type: 'str',
                key: 'connection_type',
                description:
                  'Type of connection: \n' +
                  CONNECTION_TYPE_DOC.join(',\n') +
                  '.\n' +
                  'Please note this output is unlikely to be stable in upcoming releases as we iterate to\n' +
                  'best capture connection behaviors.',
              },
              {
                type: 'str',
                key: 'transport_protocol_type',
                description: 'Type of transport protocol: \n' + TRANSPORT_TYPE_DOC.join(',\n') + '.\n',
              },
              {
                type: 'str',
                key: 'session_id',
                description: 'The session ID for this connection, or "" if there is none ("v2" transport protocol only).\n',
              },
            ],
          },
        ],
      },
    ],
    examples: helpExampleCli('getpeerinfo', '') + helpExampleRpc('getpeerinfo', ''),
    handler: () => {
      const n = net();
      const startingheight = deprecatedRpc('startingheight');
      return n.peerInfo().map((p) => peerInfoJson(p, startingheight));
    },
  });

  const getnettotals = defineRpcMethod({
    name: 'getnettotals',
    category: 'network',
    description: 'Returns information about network traffic, including bytes in, bytes out,\nand current system time.',
    args: [],
    results: [
      {
        type: 'obj',
        description: '',
        inner: [
          { type: 'num', key: 'totalbytesrecv', description: 'Total bytes received' },
          { type: 'num', key: 'totalbytessent', description: 'Total bytes sent' },
          { type: 'num_time', key: 'timemillis', description: `Current system ${UNIX_EPOCH_TIME} in milliseconds` },
          {
            type: 'obj',
            key: 'uploadtarget',
            description: '',
            inner: [
              { type: 'num', key: 'timeframe', description: 'Length of the measuring timeframe in seconds' },
              { type: 'num', key: 'target', description: 'Target in bytes' },
              { type: 'bool', key: 'target_reached', description: 'True if target is reached' },
              { type: 'bool', key: 'serve_historical_blocks', description: 'True if serving historical blocks' },
              { type: 'num', key: 'bytes_left_in_cycle', description: 'Bytes left in current time cycle' },
              { type: 'num', key: 'time_left_in_cycle', description: 'Seconds left in current time cycle' },
            ],
          },
        ],
      },
    ],
    examples: helpExampleCli('getnettotals', '') + helpExampleRpc('getnettotals', ''),
    handler: () => {
      const n = net();
      const totals = n.totals();
      const target = n.uploadTarget();
      return {
        totalbytesrecv: totals.received,
        totalbytessent: totals.sent,
        timemillis: Date.now(),
        uploadtarget: {
          timeframe: target.timeframe,
          target: target.target,
          target_reached: target.targetReached,
          serve_historical_blocks: target.serveHistoricalBlocks,
          bytes_left_in_cycle: target.bytesLeftInCycle,
          time_left_in_cycle: target.timeLeftInCycle,
        },
      };
    },
  });

  const addnode: RpcMethod = defineRpcMethod({
    name: 'addnode',
    category: 'network',
    description:
      '\nAttempts to add or remove a node from the addnode list.\n' +
      'Or try a connection to a node once.\n' +
      'Nodes added using addnode (or -connect) are protected from DoS disconnection and are not required to be\n' +
      'full nodes/support SegWit as other outbound peers are (though such peers will not be synced from).\n' +
      `Addnode connections are limited to ${MAX_ADDNODE_CONNECTIONS} at a time and are counted separately from the -maxconnections limit.\n`,
    args: [
      { name: 'node', type: 'str', description: 'The IP address/hostname optionally followed by :port of the peer to connect to' },
      {
        name: 'command',
        type: 'str',
        description: "'add' to add a node to the list, 'remove' to remove a node from the list, 'onetry' to try a connection to the node once",
      },
      {
        name: 'v2transport',
        type: 'bool',
        defaultHint: 'set by -v2transport',
        description: "Attempt to connect using BIP324 v2 transport protocol (ignored for 'remove' command)",
      },
    ],
    results: [{ type: 'none', description: '' }],
    examples: helpExampleCli('addnode', '"192.168.0.6:8333" "onetry" true') + helpExampleRpc('addnode', '"192.168.0.6:8333", "onetry" true'),
    handler: (args) => {
      const command = args.string('command');
      // Core answers an unknown command with the method's help, as a plain runtime error.
      if (command !== 'onetry' && command !== 'add' && command !== 'remove') throw new RpcError(RPC_MISC_ERROR, fullHelp(addnode));
      const n = net();
      const node = args.string('node');
      const useV2 = args.optBoolean('v2transport') ?? n.v2TransportEnabled;
      if (useV2 && !n.v2TransportEnabled) throw new RpcError(RPC_INVALID_PARAMETER, 'Error: v2transport requested but not enabled (see -v2transport)');
      if (command === 'onetry') {
        n.tryNode(node);
        return null;
      }
      if (command === 'add') {
        if (!n.addNode(node)) throw new RpcError(RPC_CLIENT_NODE_ALREADY_ADDED, 'Error: Node already added');
      } else if (!n.removeNode(node)) {
        throw new RpcError(RPC_CLIENT_NODE_NOT_ADDED, 'Error: Node could not be removed. It has not been added previously.');
      }
      return null;
    },
  });

  const disconnectnode = defineRpcMethod({
    name: 'disconnectnode',
    category: 'network',
    description:
      '\nImmediately disconnects from the specified peer node.\n' +
      "\nStrictly one out of 'address' and 'nodeid' can be provided to identify the node.\n" +
      "\nTo disconnect by nodeid, either set 'address' to the empty string, or call using the named 'nodeid' argument only.\n",
    args: [
      { name: 'address', type: 'str', defaultHint: 'fallback to nodeid', description: 'The IP address/port of the node' },
      { name: 'nodeid', type: 'num', defaultHint: 'fallback to address', description: 'The node ID (see getpeerinfo for node IDs)' },
    ],
    results: [{ type: 'none', description: '' }],
    examples:
      helpExampleCli('disconnectnode', '"192.168.0.6:8333"') +
      helpExampleCli('disconnectnode', '"" 1') +
      helpExampleRpc('disconnectnode', '"192.168.0.6:8333"') +
      helpExampleRpc('disconnectnode', '"", 1'),
    handler: (args) => {
      const n = net();
      const address = args.optString('address');
      let success: boolean;
      if (address !== undefined && !args.has('nodeid')) {
        success = n.disconnectByAddress(address);
      } else if (args.has('nodeid') && (address === undefined || address === '')) {
        success = n.disconnectById(args.int('nodeid'));
      } else {
        throw new RpcError(RPC_INVALID_PARAMS, 'Only one of address and nodeid should be provided.');
      }
      if (!success) throw new RpcError(RPC_CLIENT_NODE_NOT_CONNECTED, 'Node not found in connected nodes');
      return null;
    },
  });

  const getaddednodeinfo = defineRpcMethod({
    name: 'getaddednodeinfo',
    category: 'network',
    description: '\nReturns information about the given added node, or all added nodes\n(note that onetry addnodes are not listed here)\n',
    args: [
      {
        name: 'node',
        type: 'str',
        defaultHint: 'all nodes',
        description: 'If provided, return information about this specific node, otherwise all nodes are returned.',
      },
    ],
    results: [
      {
        type: 'arr',
        description: '',
        inner: [
          {
            type: 'obj',
            description: '',
            inner: [
              { type: 'str', key: 'addednode', description: 'The node IP address or name (as provided to addnode)' },
              { type: 'bool', key: 'connected', description: 'If connected' },
              {
                type: 'arr',
                key: 'addresses',
                description: 'Only when connected = true',
                inner: [
                  {
                    type: 'obj',
                    description: '',
                    inner: [
                      { type: 'str', key: 'address', description: "The bitcoin server IP and port we're connected to" },
                      { type: 'str', key: 'connected', description: 'connection, inbound or outbound' },
                    ],
                  },
                ],
              },
            ],
          },
        ],
      },
    ],
    examples: helpExampleCli('getaddednodeinfo', '"192.168.0.201"') + helpExampleRpc('getaddednodeinfo', '"192.168.0.201"'),
    handler: (args) => {
      const n = net();
      let added = n.addedNodes();
      const node = args.optString('node');
      if (node !== undefined) {
        const found = added.find((a) => a.addednode === node);
        if (!found) throw new RpcError(RPC_CLIENT_NODE_NOT_ADDED, 'Error: Node has not been added.');
        added = [found];
      }
      return added.map((a) => ({
        addednode: a.addednode,
        connected: a.connected,
        addresses: a.connected && a.address ? [{ address: a.address.address, connected: a.address.inbound ? 'inbound' : 'outbound' }] : [],
      }));
    },
  });

  const setban: RpcMethod = defineRpcMethod({
    name: 'setban',
    category: 'network',
    description: '\nAttempts to add or remove an IP/Subnet from the banned list.\n',
    args: [
      { name: 'subnet', type: 'str', description: 'The IP/Subnet (see getpeerinfo for nodes IP) with an optional netmask (default is /32 = single IP)' },
      { name: 'command', type: 'str', description: "'add' to add an IP/Subnet to the list, 'remove' to remove an IP/Subnet from the list" },
      {
        name: 'bantime',
        type: 'num',
        default: 0,
        description:
          'time in seconds how long (or until when if [absolute] is set) the IP is banned (0 or empty means using the default time of 24h which can also be overwritten by the -bantime startup argument)',
      },
      { name: 'absolute', type: 'bool', default: false, description: `If set, the bantime must be an absolute timestamp expressed in ${UNIX_EPOCH_TIME}` },
    ],
    results: [{ type: 'none', description: '' }],
    examples:
      helpExampleCli('setban', '"192.168.0.6" "add" 86400') +
      helpExampleCli('setban', '"192.168.0.0/24" "add"') +
      helpExampleRpc('setban', '"192.168.0.6", "add", 86400'),
    handler: (args) => {
      const command = args.string('command');
      if (command !== 'add' && command !== 'remove') throw new RpcError(RPC_MISC_ERROR, fullHelp(setban));
      const n = net();
      const subnet = args.string('subnet');
      if (command === 'remove') {
        const removed = n.unban(subnet);
        if (removed === 'invalid') throw new RpcError(RPC_CLIENT_INVALID_IP_OR_SUBNET, 'Error: Invalid IP/Subnet');
        if (removed === 'not-banned')
          throw new RpcError(RPC_CLIENT_INVALID_IP_OR_SUBNET, 'Error: Unban failed. Requested address/subnet was not previously manually banned.');
        return null;
      }
      const bantime = args.number('bantime');
      const absolute = args.boolean('absolute');
      // Core reads bantime (getInt<int64_t>) and refuses a past absolute time only after
      // the address checks: those errors come first, and nothing is banned.
      const refusal = !Number.isSafeInteger(bantime)
        ? new RpcError(RPC_MISC_ERROR, 'JSON integer out of range')
        : absolute && bantime < n.now()
          ? new RpcError(RPC_INVALID_PARAMETER, 'Error: Absolute timestamp is in the past')
          : undefined;
      const outcome = refusal ? (banState(n, subnet) ?? refusal) : n.ban(subnet, bantime, absolute);
      if (outcome === 'invalid') throw new RpcError(RPC_CLIENT_INVALID_IP_OR_SUBNET, 'Error: Invalid IP/Subnet');
      if (outcome === 'exists') throw new RpcError(RPC_CLIENT_NODE_ALREADY_ADDED, 'Error: IP/Subnet already banned');
      if (outcome instanceof RpcError) throw outcome;
      return null;
    },
  });

  const listbanned = defineRpcMethod({
    name: 'listbanned',
    category: 'network',
    description: '\nList all manually banned IPs/Subnets.\n',
    args: [],
    results: [
      {
        type: 'arr',
        description: '',
        inner: [
          {
            type: 'obj',
            description: '',
            inner: [
              { type: 'str', key: 'address', description: 'The IP/Subnet of the banned node' },
              { type: 'num_time', key: 'ban_created', description: `The ${UNIX_EPOCH_TIME} the ban was created` },
              { type: 'num_time', key: 'banned_until', description: `The ${UNIX_EPOCH_TIME} the ban expires` },
              { type: 'num_time', key: 'ban_duration', description: 'The ban duration, in seconds' },
              { type: 'num_time', key: 'time_remaining', description: 'The time remaining until the ban expires, in seconds' },
            ],
          },
        ],
      },
    ],
    examples: helpExampleCli('listbanned', '') + helpExampleRpc('listbanned', ''),
    handler: () => {
      const n = net();
      const banned = n.listBanned();
      const now = n.now();
      return [...banned]
        .sort((a, b) => compareBanned(a.address, b.address))
        .map((b) => ({
          address: b.address,
          ban_created: b.banCreated,
          banned_until: b.bannedUntil,
          ban_duration: b.bannedUntil - b.banCreated,
          time_remaining: b.bannedUntil - now,
        }));
    },
  });

  const clearbanned = defineRpcMethod({
    name: 'clearbanned',
    category: 'network',
    description: '\nClear all banned IPs.\n',
    args: [],
    results: [{ type: 'none', description: '' }],
    examples: helpExampleCli('clearbanned', '') + helpExampleRpc('clearbanned', ''),
    handler: () => {
      net().clearBanned();
      return null;
    },
  });

  const setnetworkactive = defineRpcMethod({
    name: 'setnetworkactive',
    category: 'network',
    description: '\nDisable/enable all p2p network activity.\n',
    args: [{ name: 'state', type: 'bool', description: 'true to enable networking, false to disable' }],
    results: [{ type: 'bool', description: 'The value that was passed in' }],
    examples: '',
    handler: (args) => {
      const n = net();
      n.setNetworkActive(args.boolean('state'));
      return n.networkActive;
    },
  });

  const ping = defineRpcMethod({
    name: 'ping',
    category: 'network',
    description:
      '\nRequests that a ping be sent to all other nodes, to measure ping time.\n' +
      'Results are provided in getpeerinfo.\n' +
      'Ping command is handled in queue with all other commands, so it measures processing backlog, not just network ping.\n',
    args: [],
    results: [{ type: 'none', description: '' }],
    examples: helpExampleCli('ping', '') + helpExampleRpc('ping', ''),
    handler: () => {
      net().pingAll();
      return null;
    },
  });

  const getnodeaddresses = defineRpcMethod({
    name: 'getnodeaddresses',
    category: 'network',
    description:
      'Return known addresses, after filtering for quality and recency.\n' +
      'These can potentially be used to find new peers in the network.\n' +
      'The total number of addresses known to the node may be higher.',
    args: [
      {
        name: 'count',
        type: 'num',
        default: 1,
        description: 'The maximum number of addresses to return. Specify 0 to return all known addresses.',
      },
      {
        name: 'network',
        type: 'str',
        defaultHint: 'all networks',
        description: `Return only addresses of the specified network. Can be one of: ${NETWORK_NAMES.join(', ')}.`,
      },
    ],
    results: [
      {
        type: 'arr',
        description: '',
        inner: [
          {
            type: 'obj',
            description: '',
            inner: [
              { type: 'num_time', key: 'time', description: `The ${UNIX_EPOCH_TIME} when the node was last seen` },
              { type: 'num', key: 'services', description: 'The services offered by the node' },
              { type: 'str', key: 'address', description: 'The address of the node' },
              { type: 'num', key: 'port', description: 'The port number of the node' },
              { type: 'str', key: 'network', description: `The network (${NETWORK_NAMES.join(', ')}) the node connected through` },
            ],
          },
        ],
      },
    ],
    examples:
      helpExampleCli('getnodeaddresses', '8') +
      helpExampleCli('getnodeaddresses', '4 "i2p"') +
      helpExampleCli('-named getnodeaddresses', 'network=onion count=12') +
      helpExampleRpc('getnodeaddresses', '8') +
      helpExampleRpc('getnodeaddresses', '4, "i2p"'),
    handler: (args) => {
      net();
      const count = int32(args.number('count'));
      if (count < 0) throw new RpcError(RPC_INVALID_PARAMETER, 'Address count out of range');
      const name = args.optString('network');
      // Core's ParseNetwork lower-cases (ASCII) before comparing.
      if (name !== undefined && !(NETWORK_NAMES as readonly string[]).includes(name.replace(/[A-Z]/g, (c) => c.toLowerCase()))) {
        throw new RpcError(RPC_INVALID_PARAMETER, `Network not recognized: ${name}`);
      }
      return network()!.nodeAddresses(count, name?.toLowerCase()).map((a) => ({ time: a.time, services: Number(a.services), address: a.address, port: a.port, network: a.network }));
    },
  });

  const addpeeraddress = defineRpcMethod({
    name: 'addpeeraddress',
    category: 'hidden',
    description: 'Add the address of a potential peer to an address manager table. This RPC is for testing only.',
    args: [
      { name: 'address', type: 'str', description: 'The IP address of the peer' },
      { name: 'port', type: 'num', description: 'The port of the peer' },
      { name: 'tried', type: 'bool', default: false, description: 'If true, attempt to add the peer to the tried addresses table' },
    ],
    results: [
      {
        type: 'obj',
        description: '',
        inner: [
          { type: 'bool', key: 'success', description: 'whether the peer address was successfully added to the address manager table' },
          { type: 'str', key: 'error', optional: true, description: 'error description, if the address could not be added' },
        ],
      },
    ],
    examples: helpExampleCli('addpeeraddress', '"1.2.3.4" 8333 true') + helpExampleRpc('addpeeraddress', '"1.2.3.4", 8333, true'),
    handler: (args) => {
      const n = net();
      const port = args.int('port');
      if (port < 0 || port > 65535) throw new RpcError(RPC_TYPE_ERROR, 'JSON integer out of range');
      const outcome = n.addPeerAddress(args.string('address'), port, args.optBoolean('tried') ?? false);
      if (outcome === 'invalid-ip') throw new RpcError(RPC_CLIENT_INVALID_IP_OR_SUBNET, 'Invalid IP address');
      // Core pushes "error" before "success".
      return outcome === 'ok' ? { success: true } : { error: outcome, success: false };
    },
  });

  const addconnection = defineRpcMethod({
    name: 'addconnection',
    category: 'hidden',
    description: '\nOpen an outbound connection to a specified node. This RPC is for testing only.\n',
    args: [
      { name: 'address', type: 'str', description: 'The IP address and port to attempt connecting to.' },
      { name: 'connection_type', type: 'str', description: 'Type of connection to open ("outbound-full-relay", "block-relay-only", "addr-fetch" or "feeler").' },
      { name: 'v2transport', type: 'bool', description: 'Attempt to connect using BIP324 v2 transport protocol' },
    ],
    results: [
      {
        type: 'obj',
        description: '',
        inner: [
          { type: 'str', key: 'address', description: 'Address of newly added connection.' },
          { type: 'str', key: 'connection_type', description: 'Type of connection opened.' },
        ],
      },
    ],
    examples: helpExampleCli('addconnection', '"192.168.0.6:8333" "outbound-full-relay" true') + helpExampleRpc('addconnection', '"192.168.0.6:8333" "outbound-full-relay" true'),
    handler: (args) => {
      const n = network();
      if (n && !n.regtest) throw new RpcError(RPC_MISC_ERROR, 'addconnection is for regression testing (-regtest mode) only.');
      const address = args.string('address');
      const type = args.string('connection_type').trim();
      if (type !== 'outbound-full-relay' && type !== 'block-relay-only' && type !== 'addr-fetch' && type !== 'feeler') {
        throw new RpcError(RPC_INVALID_PARAMETER, fullHelp(addconnection));
      }
      const live = net();
      if (args.boolean('v2transport') && !live.v2TransportEnabled) {
        throw new RpcError(RPC_INVALID_PARAMETER, 'Error: Adding v2transport connections requires -v2transport init flag to be set.');
      }
      if (!live.addConnection(address, type)) throw new RpcError(RPC_CLIENT_NODE_CAPACITY_REACHED, 'Error: Already at capacity for specified connection type.');
      return { address, connection_type: type };
    },
  });

  const sendmsgtopeer = defineRpcMethod({
    name: 'sendmsgtopeer',
    category: 'hidden',
    description: 'Send a p2p message to a peer specified by id.\nThe message type and body must be provided, the message header will be generated.\nThis RPC is for testing only.',
    args: [
      { name: 'peer_id', type: 'num', description: 'The peer to send the message to.' },
      { name: 'msg_type', type: 'str', description: `The message type (maximum length ${MESSAGE_TYPE_SIZE})` },
      { name: 'msg', type: 'hex', description: 'The serialized message body to send, in hex, without a message header' },
    ],
    results: [{ type: 'obj', description: '', inner: [] }],
    examples: helpExampleCli('sendmsgtopeer', '0 "addr" "ffffff"') + helpExampleRpc('sendmsgtopeer', '0 "addr" "ffffff"'),
    handler: (args) => {
      const peerId = args.int('peer_id');
      const messageType = args.string('msg_type');
      // Core measures the type in bytes (std::string::size), not characters.
      if (Buffer.byteLength(messageType, 'utf8') > MESSAGE_TYPE_SIZE) {
        throw new RpcError(RPC_INVALID_PARAMETER, `Error: msg_type too long, max length is ${MESSAGE_TYPE_SIZE}`);
      }
      const body = args.string('msg');
      if (!isHex(body)) throw new RpcError(RPC_INVALID_PARAMETER, 'Error parsing input for msg');
      if (!net().sendToPeer(peerId, messageType, fromHex(body))) throw new RpcError(RPC_MISC_ERROR, 'Error: Could not send message to peer');
      return {};
    },
  });

  const getrawaddrman = defineRpcMethod({
    name: 'getrawaddrman',
    category: 'hidden',
    description: 'EXPERIMENTAL warning: this call may be changed in future releases.\n\nReturns information on all address manager entries for the new and tried tables.\n',
    args: [],
    results: [
      {
        type: 'obj_dyn',
        description: '',
        inner: [
          {
            type: 'obj_dyn',
            key: 'table',
            description: 'buckets with addresses in the address manager table ( new, tried )',
            inner: [
              {
                type: 'obj',
                key: 'bucket/position',
                description: 'the location in the address manager table (<bucket>/<position>)',
                inner: [
                  { type: 'str', key: 'address', description: 'The address of the node' },
                  { type: 'num', key: 'mapped_as', optional: true, description: 'Mapped AS (Autonomous System) number at the end of the BGP route to the peer, used for diversifying peer selection (only displayed if the -asmap config option is set)' },
                  { type: 'num', key: 'port', description: 'The port number of the node' },
                  { type: 'str', key: 'network', description: 'The network (ipv4, ipv6, onion, i2p, cjdns) of the address' },
                  { type: 'num', key: 'services', description: 'The services offered by the node' },
                  { type: 'num_time', key: 'time', description: `The ${UNIX_EPOCH_TIME} when the node was last seen` },
                  { type: 'str', key: 'source', description: 'The address that relayed the address to us' },
                  { type: 'str', key: 'source_network', description: 'The network (ipv4, ipv6, onion, i2p, cjdns) of the source address' },
                  { type: 'num', key: 'source_mapped_as', optional: true, description: 'Mapped AS (Autonomous System) number at the end of the BGP route to the source, used for diversifying peer selection (only displayed if the -asmap config option is set)' },
                ],
              },
            ],
          },
        ],
      },
    ],
    examples: helpExampleCli('getrawaddrman', '') + helpExampleRpc('getrawaddrman', ''),
    handler: () => {
      const n = net();
      // Core's AddrmanTableToJSON: "<bucket>/<position>" keys, bucket by bucket; no -asmap, so no mapped_as.
      const table = (tried: boolean): Record<string, unknown> => {
        const out: Record<string, unknown> = {};
        for (const e of n.addrmanTable(tried)) {
          out[`${e.bucket}/${e.position}`] = {
            address: e.address,
            port: e.port,
            services: Number(e.services),
            time: e.time,
            network: e.network,
            source: e.source,
            source_network: e.sourceNetwork,
          };
        }
        return out;
      };
      return { new: table(false), tried: table(true) };
    },
  });

  const mockscheduler = defineRpcMethod({
    name: 'mockscheduler',
    category: 'hidden',
    description: 'Bump the scheduler into the future (-regtest only)\n',
    args: [{ name: 'delta_time', type: 'num', description: 'Number of seconds to forward the scheduler into the future.' }],
    results: [{ type: 'none', description: '' }],
    examples: '',
    handler: (args) => {
      const n = network();
      // Core throws std::runtime_error for both: RPC_MISC_ERROR.
      if (n && !n.regtest) throw new RpcError(RPC_MISC_ERROR, 'mockscheduler is for regression testing (-regtest mode) only');
      const delta = args.int('delta_time');
      if (delta <= 0 || delta > 3600) throw new RpcError(RPC_MISC_ERROR, 'delta_time must be between 1 and 3600 seconds (1 hr)');
      n?.mockScheduler(delta);
      return null;
    },
  });

  const getaddrmaninfo = defineRpcMethod({
    name: 'getaddrmaninfo',
    category: 'network',
    description: 'Provides information about the node\'s address manager by returning the number of addresses in the `new` and `tried` tables and their sum for all networks.\n',
    args: [],
    results: [
      {
        type: 'obj_dyn',
        description: 'json object with network type as keys',
        inner: [
          {
            type: 'obj',
            key: 'network',
            description: 'the network (ipv4, ipv6, onion, i2p, cjdns, all_networks)',
            inner: [
              { type: 'num', key: 'new', description: 'number of addresses in the new table, which represent potential peers the node has discovered but hasn\'t yet successfully connected to.' },
              { type: 'num', key: 'tried', description: 'number of addresses in the tried table, which represent peers the node has successfully connected to in the past.' },
              { type: 'num', key: 'total', description: 'total number of addresses in both new/tried tables' },
            ],
          },
        ],
      },
    ],
    examples: helpExampleCli('getaddrmaninfo', '') + helpExampleRpc('getaddrmaninfo', ''),
    handler: () => net().addrmanInfo(),
  });

  const getblockfrompeer = defineRpcMethod({
    name: 'getblockfrompeer',
    category: 'blockchain',
    description:
      'Attempt to fetch block from a given peer.\n\n' +
      'We must have the header for this block, e.g. using submitheader.\n' +
      'The block will not have any undo data which can limit the usage of the block data in a context where the undo data is needed.\n' +
      'Subsequent calls for the same block may cause the response from the previous peer to be ignored.\n' +
      'Peers generally ignore requests for a stale block that they never fully verified, or one that is more than a month old.\n' +
      'When a peer does not respond with a block, we will disconnect.\n' +
      'Note: The block could be re-pruned as soon as it is received.\n\n' +
      'Returns an empty JSON object if the request was successfully scheduled.',
    args: [
      { name: 'blockhash', type: 'hex', description: 'The block hash to try to fetch' },
      { name: 'peer_id', type: 'num', description: 'The peer to fetch it from (see getpeerinfo for peer IDs)' },
    ],
    results: [{ type: 'obj', description: '' }],
    examples:
      helpExampleCli('getblockfrompeer', '"00000000c937983704a73af28acdec37b049d214adbda81d7e2a3dd146f6ed09" 0') +
      helpExampleRpc('getblockfrompeer', '"00000000c937983704a73af28acdec37b049d214adbda81d7e2a3dd146f6ed09" 0'),
    handler: (args) => {
      const n = net();
      const hashHex = args.string('blockhash');
      parseHash(hashHex, 'blockhash');
      const peerId = args.int('peer_id');
      const error = n.fetchBlockFromPeer(hashHex.toLowerCase(), peerId);
      if (error) throw new RpcError(error.code, error.message);
      return {};
    },
  });

  const getorphantxs = defineRpcMethod({
    name: 'getorphantxs',
    category: 'hidden',
    description: 'Shows transactions in the tx orphanage.\n\nEXPERIMENTAL warning: this call may be changed in future releases.\n',
    args: [
      {
        name: 'verbosity',
        type: 'num',
        default: 0,
        skipTypeCheck: true,
        description:
          '0 for an array of txids (may contain duplicates), 1 for an array of objects with tx details, and 2 for details from (1) and tx hex',
      },
    ],
    results: [
      { type: 'arr', cond: 'for verbose = 0', description: '', inner: [{ type: 'str_hex', key: 'txid', description: 'The transaction hash in hex' }] },
      { type: 'arr', cond: 'for verbose = 1', description: '', inner: [{ type: 'obj', description: '', inner: ORPHAN_DESCRIPTION }] },
      {
        type: 'arr',
        cond: 'for verbose = 2',
        description: '',
        inner: [
          {
            type: 'obj',
            description: '',
            inner: [...ORPHAN_DESCRIPTION, { type: 'str_hex', key: 'hex', description: 'The serialized, hex-encoded transaction data' }],
          },
        ],
      },
    ],
    examples: helpExampleCli('getorphantxs', '2') + helpExampleRpc('getorphantxs', '2'),
    handler: (args) => {
      const orphans = net().orphans();
      const verbosity = parseVerbosity(args.value('verbosity'), 0, false);
      const details = (o: (typeof orphans)[number]) => ({
        txid: o.txid,
        wtxid: o.wtxid,
        bytes: o.bytes,
        vsize: o.vsize,
        weight: o.weight,
        from: [...o.from],
      });
      if (verbosity === 0) return orphans.map((o) => o.txid);
      if (verbosity === 1) return orphans.map(details);
      if (verbosity === 2) return orphans.map((o) => ({ ...details(o), hex: o.hex }));
      throw new RpcError(RPC_INVALID_PARAMETER, `Invalid verbosity value ${verbosity}`);
    },
  });

  return [
    getpeerinfo,
    getnettotals,
    addnode,
    disconnectnode,
    getaddednodeinfo,
    setban,
    listbanned,
    clearbanned,
    setnetworkactive,
    ping,
    getnodeaddresses,
    addpeeraddress,
    addconnection,
    mockscheduler,
    getaddrmaninfo,
    sendmsgtopeer,
    getrawaddrman,
    getblockfrompeer,
    getorphantxs,
  ];
}
