/**
 * Network and node-introspection methods the coordinator answers: getnetworkinfo,
 * getconnectioncount (Network), getmemoryinfo (Control) and the hidden
 * syncwithvalidationinterfacequeue, with Core v31's help texts and key order
 * (rpc/net.cpp, rpc/node.cpp). The fixed facts come from NetworkFacts, which the node
 * derives from its options; connection counts and the network switch from the running
 * P2P layer (PeerNetwork).
 */
import { RPC_INVALID_PARAMETER, RpcError } from './errors.js';
import { type NodeFacts, warningsJson, warningsResultDoc } from './node-facts.js';
import type { PeerNetwork } from './peer-network.js';
import { defineRpcMethod } from './registry.js';
import { helpExampleCli, helpExampleRpc, type RpcMethod } from './spec.js';
import { amountJson } from './values.js';

/** Core's PROTOCOL_VERSION. */
export const PROTOCOL_VERSION = 70016;
/** The RPC interface tsbtcd implements: Bitcoin Core 31.0 (getnetworkinfo's "version"). */
export const RPC_INTERFACE_VERSION = 310000;

/** Service bits (protocol.h) and their names, in bit order as GetServicesNames lists them. */
export const SERVICE_FLAGS = {
  NETWORK: 1n << 0n,
  BLOOM: 1n << 2n,
  WITNESS: 1n << 3n,
  COMPACT_FILTERS: 1n << 6n,
  NETWORK_LIMITED: 1n << 10n,
  P2P_V2: 1n << 11n,
} as const;

const SERVICE_NAMES: [bigint, string][] = [
  [SERVICE_FLAGS.NETWORK, 'NETWORK'],
  [1n << 1n, 'GETUTXO'],
  [SERVICE_FLAGS.BLOOM, 'BLOOM'],
  [SERVICE_FLAGS.WITNESS, 'WITNESS'],
  [SERVICE_FLAGS.COMPACT_FILTERS, 'COMPACT_FILTERS'],
  [SERVICE_FLAGS.NETWORK_LIMITED, 'NETWORK_LIMITED'],
  [SERVICE_FLAGS.P2P_V2, 'P2P_V2'],
];

/** Core's GetServicesNames: known bits low to high, unknown ones as UNKNOWN[2^n]. */
export function servicesNames(services: bigint): string[] {
  const out: string[] = [];
  for (let bit = 0n; bit < 64n; bit++) {
    const flag = 1n << bit;
    if ((services & flag) === 0n) continue;
    out.push(SERVICE_NAMES.find(([f]) => f === flag)?.[1] ?? `UNKNOWN[2^${bit}]`);
  }
  return out;
}

/** The networks getnetworkinfo lists, in Core's enum order. */
export const NETWORK_NAMES = ['ipv4', 'ipv6', 'onion', 'i2p', 'cjdns'] as const;
export type NetworkName = (typeof NETWORK_NAMES)[number];

export interface NetworkFacts {
  /** BIP14 user agent: "/tsbtcd:0.1.0/" or with comments "/tsbtcd:0.1.0(c1; c2)/". */
  readonly subversion: string;
  /** Core's g_local_services. */
  readonly localServices: bigint;
  /** false with -blocksonly (Core: !ignores_incoming_txs). */
  readonly localRelay: boolean;
  /** -networkactive. */
  readonly networkActive: boolean;
  /** Networks Core would consider reachable (-onlynet, onion/i2p/cjdns need their options). */
  readonly reachable: ReadonlySet<NetworkName>;
  /** The SOCKS5 proxy per network (-proxy, -onion), as "host:port", and whether credentials are randomized. */
  readonly proxies?: Partial<Record<NetworkName, { address: string; randomizeCredentials: boolean }>>;
  /** Our own addresses as peers should see them (-externalip), Core's localaddresses. */
  readonly localAddresses?: readonly { address: string; port: number; score: number }[];
  /** -minrelaytxfee and -incrementalrelayfee, satoshis per kvB. */
  readonly relayFee: bigint;
  readonly incrementalFee: bigint;
}

/** Core's FormatSubVersion: "/name:version(comment; comment)/". */
export function formatSubVersion(name: string, version: string, comments: readonly string[]): string {
  return `/${name}:${version}${comments.length > 0 ? `(${comments.join('; ')})` : ''}/`;
}

/** Core's "%016x" of the service flags (getnetworkinfo, getpeerinfo). */
export function servicesHex(value: bigint): string {
  return value.toString(16).padStart(16, '0');
}

/** getnetworkinfo in Core's code order (networkactive before the connection counts). */
export function networkInfoJson(net: NetworkFacts, node: NodeFacts, live?: PeerNetwork): Record<string, unknown> {
  const counts = live ? live.connectionCounts() : { inbound: 0, outbound: node.peerCount() };
  return {
    version: RPC_INTERFACE_VERSION,
    subversion: net.subversion,
    protocolversion: PROTOCOL_VERSION,
    localservices: servicesHex(net.localServices),
    localservicesnames: servicesNames(net.localServices),
    localrelay: net.localRelay,
    timeoffset: live ? live.timeOffset() : 0,
    networkactive: live ? live.networkActive : net.networkActive,
    connections: counts.inbound + counts.outbound,
    connections_in: counts.inbound,
    connections_out: counts.outbound,
    networks: NETWORK_NAMES.map((name) => ({
      name,
      limited: !net.reachable.has(name),
      reachable: net.reachable.has(name),
      proxy: net.proxies?.[name]?.address ?? '',
      proxy_randomize_credentials: net.proxies?.[name]?.randomizeCredentials ?? false,
    })),
    relayfee: amountJson(net.relayFee),
    incrementalfee: amountJson(net.incrementalFee),
    localaddresses: (net.localAddresses ?? []).map((a) => ({ address: a.address, port: a.port, score: a.score })),
    warnings: warningsJson(node),
  };
}

/**
 * `live` is the running P2P layer; absent, the answers come from the options alone (a node
 * object without P2P, as in unit tests).
 */
export function networkMethods(net: NetworkFacts, node: NodeFacts, live?: () => PeerNetwork | undefined): RpcMethod[] {
  const getnetworkinfo = defineRpcMethod({
    name: 'getnetworkinfo',
    category: 'network',
    description: 'Returns an object containing various state info regarding P2P networking.\n',
    args: [],
    results: [
      {
        type: 'obj',
        description: '',
        inner: [
          { type: 'num', key: 'version', description: 'the server version' },
          { type: 'str', key: 'subversion', description: 'the server subversion string' },
          { type: 'num', key: 'protocolversion', description: 'the protocol version' },
          { type: 'str_hex', key: 'localservices', description: 'the services we offer to the network' },
          {
            type: 'arr',
            key: 'localservicesnames',
            description: 'the services we offer to the network, in human-readable form',
            inner: [{ type: 'str', key: 'SERVICE_NAME', description: 'the service name' }],
          },
          { type: 'bool', key: 'localrelay', description: 'true if transaction relay is requested from peers' },
          { type: 'num', key: 'timeoffset', description: 'the time offset' },
          { type: 'num', key: 'connections', description: 'the total number of connections' },
          { type: 'num', key: 'connections_in', description: 'the number of inbound connections' },
          { type: 'num', key: 'connections_out', description: 'the number of outbound connections' },
          { type: 'bool', key: 'networkactive', description: 'whether p2p networking is enabled' },
          {
            type: 'arr',
            key: 'networks',
            description: 'information per network',
            inner: [
              {
                type: 'obj',
                description: '',
                inner: [
                  { type: 'str', key: 'name', description: 'network (ipv4, ipv6, onion, i2p, cjdns)' },
                  { type: 'bool', key: 'limited', description: 'is the network limited using -onlynet?' },
                  { type: 'bool', key: 'reachable', description: 'is the network reachable?' },
                  { type: 'str', key: 'proxy', description: '("host:port") the proxy that is used for this network, or empty if none' },
                  { type: 'bool', key: 'proxy_randomize_credentials', description: 'Whether randomized credentials are used' },
                ],
              },
            ],
          },
          { type: 'num', key: 'relayfee', description: 'minimum relay fee rate for transactions in BTC/kvB' },
          { type: 'num', key: 'incrementalfee', description: 'minimum fee rate increment for mempool limiting or replacement in BTC/kvB' },
          {
            type: 'arr',
            key: 'localaddresses',
            description: 'list of local addresses',
            inner: [
              {
                type: 'obj',
                description: '',
                inner: [
                  { type: 'str', key: 'address', description: 'network address' },
                  { type: 'num', key: 'port', description: 'network port' },
                  { type: 'num', key: 'score', description: 'relative score' },
                ],
              },
            ],
          },
          warningsResultDoc(node.deprecatedRpc('warnings')),
        ],
      },
    ],
    examples: helpExampleCli('getnetworkinfo', '') + helpExampleRpc('getnetworkinfo', ''),
    handler: () => networkInfoJson(net, node, live?.()),
  });

  const getconnectioncount = defineRpcMethod({
    name: 'getconnectioncount',
    category: 'network',
    description: 'Returns the number of connections to other nodes.\n',
    args: [],
    results: [{ type: 'num', description: 'The connection count' }],
    examples: helpExampleCli('getconnectioncount', '') + helpExampleRpc('getconnectioncount', ''),
    handler: () => {
      const network = live?.();
      if (!network) return node.peerCount();
      const counts = network.connectionCounts();
      return counts.inbound + counts.outbound;
    },
  });

  return [getnetworkinfo, getconnectioncount];
}

/**
 * getmemoryinfo and syncwithvalidationinterfacequeue (Core's rpc/node.cpp). tsbtcd keeps
 * no key material, so its locked-memory pool never allocates an arena: every count is 0.
 * "mallocinfo" needs glibc's malloc_info(), which a JavaScript process cannot call: the
 * answer is Core's for a build without it.
 */
export function nodeMethods(): RpcMethod[] {
  const getmemoryinfo = defineRpcMethod({
    name: 'getmemoryinfo',
    category: 'control',
    description: 'Returns an object containing information about memory usage.\n',
    args: [
      {
        name: 'mode',
        type: 'str',
        default: 'stats',
        description:
          'determines what kind of information is returned.\n' +
          '  - "stats" returns general statistics about memory usage in the daemon.\n' +
          '  - "mallocinfo" returns an XML string describing low-level heap state (only available if compiled with glibc).',
      },
    ],
    results: [
      {
        type: 'obj',
        cond: 'mode "stats"',
        description: '',
        inner: [
          {
            type: 'obj',
            key: 'locked',
            description: 'Information about locked memory manager',
            inner: [
              { type: 'num', key: 'used', description: 'Number of bytes used' },
              { type: 'num', key: 'free', description: 'Number of bytes available in current arenas' },
              { type: 'num', key: 'total', description: 'Total number of bytes managed' },
              {
                type: 'num',
                key: 'locked',
                description:
                  'Amount of bytes that succeeded locking. If this number is smaller than total, locking pages failed at some point and key data could be swapped to disk.',
              },
              { type: 'num', key: 'chunks_used', description: 'Number allocated chunks' },
              { type: 'num', key: 'chunks_free', description: 'Number unused chunks' },
            ],
          },
        ],
      },
      { type: 'str', cond: 'mode "mallocinfo"', description: '"<malloc version="1">..."' },
    ],
    examples: helpExampleCli('getmemoryinfo', '') + helpExampleRpc('getmemoryinfo', ''),
    handler: (args) => {
      const mode = args.string('mode');
      if (mode === 'stats') return { locked: { used: 0, free: 0, total: 0, locked: 0, chunks_used: 0, chunks_free: 0 } };
      if (mode === 'mallocinfo') throw new RpcError(RPC_INVALID_PARAMETER, 'mallocinfo mode not available');
      throw new RpcError(RPC_INVALID_PARAMETER, `unknown mode ${mode}`);
    },
  });

  const syncwithvalidationinterfacequeue = defineRpcMethod({
    name: 'syncwithvalidationinterfacequeue',
    category: 'hidden',
    description: 'Waits for the validation interface queue to catch up on everything that was there when we entered this function.\n',
    args: [],
    results: [{ type: 'none', description: '' }],
    examples: helpExampleCli('syncwithvalidationinterfacequeue', '') + helpExampleRpc('syncwithvalidationinterfacequeue', ''),
    // Block-connected and tip notifications are delivered synchronously as blocks connect:
    // by the time this call runs, nothing is queued.
    handler: () => null,
  });

  return [getmemoryinfo, syncwithvalidationinterfacequeue];
}
