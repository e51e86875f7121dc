/**
 * -netinfo, bitcoin-cli v31.0's peer dashboard: a batch of getpeerinfo and getnetworkinfo
 * rendered as the peer counts per reachable network, optionally preceded by a peers
 * listing (levels 1-4, `outonly`), and followed by the local services and addresses.
 */
import { CliError } from './convert.js';
import { processBatchReply } from './getinfo.js';
import { CLIENT_PROGRAM, NETINFO_MAX_LEVEL } from './options.js';
import { jsonRpcReply, jsonRpcRequest, toUint16, type RequestHandler } from './rpc-call.js';
import { findValue, getBool, getInt, getReal, getStr, getValues, isNull, NULL, uvArr, uvStr, type UniValue } from './univalue.js';

/** GetNetworkName() values, and the short names of the listing. */
const NETWORKS = ['not_publicly_routable', 'ipv4', 'ipv6', 'onion', 'i2p', 'cjdns', 'internal'] as const;
const NETWORK_SHORT_NAMES = ['npr', 'ipv4', 'ipv6', 'onion', 'i2p', 'cjdns', 'int'] as const;
/** not_publicly_routable and internal: shown only when there are peers on them. */
const UNREACHABLE_NETWORK_IDS = [0, 6] as const;

const ID_PEERINFO = 0;
const ID_NETWORKINFO = 1;

interface Peer {
  addr: string;
  subVersion: string;
  connType: string;
  network: string;
  age: string;
  services: string;
  transport: string;
  minPing: number;
  ping: number;
  addrProcessed: number;
  addrRateLimited: number;
  lastBlock: number;
  lastRecv: number;
  lastSend: number;
  lastTxn: number;
  id: number;
  mappedAs: number;
  version: number;
  addrRelayEnabled: boolean;
  hbFrom: boolean;
  hbTo: boolean;
  outbound: boolean;
  txRelay: boolean;
}

const networkId = (name: string) => (NETWORKS as readonly string[]).indexOf(name);

/** printf's %*s: right-justified (left-justified for a negative width, as %-*s). */
const pad = (width: number, s: string | number) => (width < 0 ? String(s).padEnd(-width) : String(s).padStart(width));

/** ToString(double) for the whole numbers the dashboard prints. */
const num = (n: number) => String(n);

function pingTimeToString(seconds: number): string {
  if (seconds < 0) return '';
  const ms = Math.sign(seconds) * Math.round(Math.abs(seconds) * 1000);
  return ms > 999999 ? '-' : num(ms);
}

function connectionTypeForNetinfo(type: string): string {
  if (type === 'outbound-full-relay') return 'full';
  if (type === 'block-relay-only') return 'block';
  if (type === 'manual' || type === 'feeler') return type;
  if (type === 'addr-fetch') return 'addr';
  if (type === 'private-broadcast') return 'priv';
  return '';
}

function formatServices(services: UniValue): string {
  let s = '';
  for (const v of getValues(services)) {
    const name = getStr(v);
    s += name === 'NETWORK_LIMITED' ? 'l' : name === 'P2P_V2' ? '2' : (name[0] ?? '').toLowerCase();
  }
  return s;
}

function servicesList(services: UniValue): string {
  const names = services.type === 'arr' ? services.values.map(getStr) : [];
  return names
    .join(', ')
    .split('')
    .map((c) => (c === '_' ? ' ' : c.toLowerCase()))
    .join('');
}

/** Integer division truncating toward zero, as int64 arithmetic does. */
const div = (a: number, b: number) => Math.trunc(a / b);

export class NetinfoRequestHandler implements RequestHandler {
  private detailsLevel = 0;
  private outboundOnly = false;

  constructor(
    /** ' regtest', ' testnet', ' testnet4', ' signet', or '' for main. */
    private readonly chainSuffix: string,
    /** CLIENT_NAME and FormatFullVersion() of the header line. */
    private readonly clientName: string,
    private readonly clientVersion: string,
    private readonly nowSeconds: () => number,
  ) {}

  prepareRequest(_method: string, words: readonly string[]): UniValue {
    if (words.length > 0) {
      const level = toUint16(words[0]!);
      if (level === undefined || level > 255) {
        throw new CliError(`invalid -netinfo level argument: ${words[0]}\nFor more information, run: bitcoin-cli -netinfo help`);
      }
      this.detailsLevel = Math.min(level, NETINFO_MAX_LEVEL);
      if (words.length > 1) {
        const s = words[1]!;
        if (level && (s === 'o' || s === 'outonly')) this.outboundOnly = true;
        else if (level) throw new CliError(`invalid -netinfo outonly argument: ${s}\nFor more information, run: bitcoin-cli -netinfo help`);
        else {
          throw new CliError(
            `invalid -netinfo outonly argument: ${s}\nThe outonly argument is only valid for a level greater than 0 (the first argument). For more information, run: bitcoin-cli -netinfo help`,
          );
        }
      }
    }
    return uvArr([jsonRpcRequest('getpeerinfo', NULL, ID_PEERINFO), jsonRpcRequest('getnetworkinfo', NULL, ID_NETWORKINFO)]);
  }

  processReply(reply: UniValue): UniValue {
    const batch = processBatchReply(reply);
    const peerReply = batch[ID_PEERINFO] ?? NULL;
    const netReply = batch[ID_NETWORKINFO] ?? NULL;
    if (!isNull(findValue(peerReply, 'error'))) return peerReply;
    if (!isNull(findValue(netReply, 'error'))) return netReply;
    const networkinfo = findValue(netReply, 'result');
    if (getInt(findValue(networkinfo, 'version')) < 209900) {
      throw new CliError('-netinfo requires bitcoind server to be running v0.21.0 and up');
    }
    const details = this.detailsLevel > 0;
    const showAddress = this.detailsLevel === 2 || this.detailsLevel === 4;
    const showVersion = this.detailsLevel === 3 || this.detailsLevel === 4;
    const timeNow = this.nowSeconds();

    // counts[in/out/total][network id or NETWORKS.length for all]
    const counts = [0, 1, 2].map(() => new Array<number>(NETWORKS.length + 1).fill(0));
    let blockRelayPeers = 0;
    let manualPeers = 0;
    const peers: Peer[] = [];
    const widths = { addr: 0, addrProcessed: 5, addrRateLimited: 6, age: 5, id: 2, services: 6 };
    let asmapOn = false;

    for (const p of getValues(findValue(peerReply, 'result'))) {
      const f = (key: string) => findValue(p, key);
      const netId = networkId(getStr(f('network')));
      if (netId < 0) continue;
      const outbound = !getBool(f('inbound'));
      const txRelay = isNull(f('relaytxes')) ? true : getBool(f('relaytxes'));
      const connType = getStr(f('connection_type'));
      const row = outbound ? 1 : 0;
      ++counts[row]![netId]!;
      ++counts[row]![NETWORKS.length]!;
      ++counts[2]![netId]!;
      ++counts[2]![NETWORKS.length]!;
      if (connType === 'block-relay-only') ++blockRelayPeers;
      if (connType === 'manual') ++manualPeers;
      if (this.outboundOnly && !outbound) continue;
      if (!details) continue;
      const optInt = (key: string) => (isNull(f(key)) ? 0 : getInt(f(key), 'int64'));
      const connTime = getInt(f('conntime'), 'int64');
      const peer: Peer = {
        addr: getStr(f('addr')),
        subVersion: getStr(f('subver')),
        connType,
        network: NETWORK_SHORT_NAMES[netId]!,
        age: connTime === 0 ? '' : num(div(timeNow - connTime, 60)),
        services: formatServices(f('servicesnames')),
        transport: isNull(f('transport_protocol_type')) ? 'v1' : getStr(f('transport_protocol_type')),
        minPing: isNull(f('minping')) ? -1 : getReal(f('minping')),
        ping: isNull(f('pingtime')) ? -1 : getReal(f('pingtime')),
        addrProcessed: optInt('addr_processed'),
        addrRateLimited: optInt('addr_rate_limited'),
        lastBlock: getInt(f('last_block'), 'int64'),
        lastRecv: getInt(f('lastrecv'), 'int64'),
        lastSend: getInt(f('lastsend'), 'int64'),
        lastTxn: getInt(f('last_transaction'), 'int64'),
        id: getInt(f('id')),
        mappedAs: isNull(f('mapped_as')) ? 0 : getInt(f('mapped_as')),
        version: getInt(f('version')),
        addrRelayEnabled: isNull(f('addr_relay_enabled')) ? false : getBool(f('addr_relay_enabled')),
        hbFrom: getBool(f('bip152_hb_from')),
        hbTo: getBool(f('bip152_hb_to')),
        outbound,
        txRelay,
      };
      peers.push(peer);
      widths.addr = Math.max(peer.addr.length + 1, widths.addr);
      widths.addrProcessed = Math.max(num(peer.addrProcessed).length, widths.addrProcessed);
      widths.addrRateLimited = Math.max(num(peer.addrRateLimited).length, widths.addrRateLimited);
      widths.age = Math.max(peer.age.length, widths.age);
      widths.id = Math.max(num(peer.id).length, widths.id);
      widths.services = Math.max(peer.services.length, widths.services);
      asmapOn ||= peer.mappedAs !== 0;
    }

    const services = details ? ` - services ${formatServices(findValue(networkinfo, 'localservicesnames'))}` : '';
    let out =
      `${this.clientName} client ${this.clientVersion}${this.chainSuffix} - server ` +
      `${getInt(findValue(networkinfo, 'protocolversion'))}${getStr(findValue(networkinfo, 'subversion'))}${services}\n\n`;

    if (details && peers.length > 0) {
      // Inbound first, then by minimum ping.
      peers.sort((a, b) => Number(a.outbound) - Number(b.outbound) || a.minPing - b.minPing);
      out +=
        `<->   type   net ${pad(widths.services, 'serv')}  v  mping   ping send recv  txn  blk  hb ` +
        `${pad(widths.addrProcessed, 'addrp')}${pad(widths.addrRateLimited, 'addrl')}${pad(widths.age, 'age')} `;
      if (asmapOn) out += ' asmap ';
      out += `${pad(widths.id, 'id')} ${pad(-(showAddress ? widths.addr : 0), showAddress ? 'address' : '')}${showVersion ? 'version' : ''}\n`;
      for (const peer of peers) {
        const version = num(peer.version) + peer.subVersion;
        const transport = peer.transport.length === 2 && peer.transport[0] === 'v' ? peer.transport[1]! : ' ';
        out +=
          `${pad(3, peer.outbound ? 'out' : 'in')} ${pad(6, connectionTypeForNetinfo(peer.connType))} ${pad(5, peer.network)} ` +
          `${pad(widths.services, peer.services)} ${pad(2, transport)}${pad(7, pingTimeToString(peer.minPing))}${pad(7, pingTimeToString(peer.ping))}` +
          pad(5, peer.lastSend ? num(timeNow - peer.lastSend) : '') +
          pad(5, peer.lastRecv ? num(timeNow - peer.lastRecv) : '') +
          pad(5, peer.lastTxn ? num(div(timeNow - peer.lastTxn, 60)) : peer.txRelay ? '' : '*') +
          pad(5, peer.lastBlock ? num(div(timeNow - peer.lastBlock, 60)) : '') +
          `  ${pad(2, `${peer.hbTo ? '.' : ' '}${peer.hbFrom ? '*' : ' '}`)} ` +
          pad(widths.addrProcessed, peer.addrProcessed ? num(peer.addrProcessed) : peer.addrRelayEnabled ? '' : '.') +
          pad(widths.addrRateLimited, peer.addrRateLimited ? num(peer.addrRateLimited) : '') +
          pad(widths.age, peer.age) +
          pad(asmapOn ? 7 : 0, asmapOn && peer.mappedAs ? num(peer.mappedAs) : '') +
          ` ${pad(widths.id, peer.id)} ${pad(-(showAddress ? widths.addr : 0), showAddress ? peer.addr : '')}` +
          `${showVersion && version !== '0' ? version : ''}\n`;
      }
      out += `                ${pad(widths.services, '')}         ms     ms  sec  sec  min  min                ${pad(widths.age, 'min')}\n\n`;
    }

    // Peer counts by network and type.
    out += '     ';
    const columns: number[] = [];
    for (const network of getValues(findValue(networkinfo, 'networks'))) {
      if (!getBool(findValue(network, 'reachable'))) continue;
      const name = getStr(findValue(network, 'name'));
      const id = networkId(name);
      if (id < 0) continue;
      out += pad(8, name);
      columns.push(id);
    }
    for (const id of UNREACHABLE_NETWORK_IDS) {
      if (counts[2]![id] === 0) continue;
      out += pad(8, NETWORK_SHORT_NAMES[id]!);
      columns.push(id);
    }
    out += '   total   block';
    if (manualPeers) out += '  manual';
    ['in', 'out', 'total'].forEach((label, i) => {
      out += `\n${label.padEnd(5)}`;
      for (const id of columns) out += pad(8, counts[i]![id]!);
      out += `   ${pad(5, counts[i]![NETWORKS.length]!)}`;
      if (i === 1) {
        out += `   ${pad(5, blockRelayPeers)}`;
        if (manualPeers) out += `   ${pad(5, manualPeers)}`;
      }
    });

    if (!details) out += `\n\nLocal services: ${servicesList(findValue(networkinfo, 'localservicesnames'))}`;
    out += '\n\nLocal addresses';
    const local = getValues(findValue(networkinfo, 'localaddresses'));
    if (local.length === 0) {
      out += ': n/a\n';
    } else {
      const width = Math.max(0, ...local.map((a) => getStr(findValue(a, 'address')).length + 1));
      for (const a of local) {
        out +=
          `\n${getStr(findValue(a, 'address')).padEnd(width)}    port ${pad(6, getInt(findValue(a, 'port')))}` +
          `    score ${pad(6, getInt(findValue(a, 'score')))}`;
      }
    }
    return jsonRpcReply(uvStr(out), NULL, 1);
  }
}

/** NetinfoRequestHandler::m_help_doc. */
export const NETINFO_HELP = [
  '-netinfo (level [outonly]) | help',
  '',
  'Returns a network peer connections dashboard with information from the remote server.',
  'This human-readable interface will change regularly and is not intended to be a stable API.',
  'Under the hood, -netinfo fetches the data by calling getpeerinfo and getnetworkinfo.',
  `An optional argument from 0 to ${NETINFO_MAX_LEVEL} can be passed for different peers listings; values above ${NETINFO_MAX_LEVEL} up to 255 are parsed as ${NETINFO_MAX_LEVEL}.`,
  'If that argument is passed, an optional additional "outonly" argument may be passed to obtain the listing with outbound peers only.',
  'Pass "help" or "h" to see this detailed help documentation.',
  'If more than two arguments are passed, only the first two are read and parsed.',
  'Suggestion: use -netinfo with the Linux watch(1) command for a live dashboard; see example below.',
  '',
  'Arguments:',
  `1. level (integer 0-${NETINFO_MAX_LEVEL}, optional)  Specify the info level of the peers dashboard (default 0):`,
  '                                  0 - Peer counts for each reachable network as well as for block relay peers',
  '                                      and manual peers, and the list of local addresses and ports',
  '                                  1 - Like 0 but preceded by a peers listing (without address and version columns)',
  '                                  2 - Like 1 but with an address column',
  '                                  3 - Like 1 but with a version column',
  '                                  4 - Like 1 but with both address and version columns',
  '2. outonly ("outonly" or "o", optional) Return the peers listing with outbound peers only, i.e. to save screen space',
  '                                        when a node has many inbound peers. Only valid if a level is passed.',
  '',
  'help ("help" or "h", optional) Print this help documentation instead of the dashboard.',
  '',
  'Result:',
  '',
  `* The peers listing in levels 1-${NETINFO_MAX_LEVEL} displays all of the peers sorted by direction and minimum ping time:`,
  '',
  '  Column   Description',
  '  ------   -----------',
  '  <->      Direction',
  '           "in"  - inbound connections are those initiated by the peer',
  '           "out" - outbound connections are those initiated by us',
  '  type     Type of peer connection',
  '           "full"   - full relay, the default',
  '           "block"  - block relay; like full relay but does not relay transactions or addresses',
  '           "manual" - peer we manually added using RPC addnode or the -addnode/-connect config options',
  '           "feeler" - short-lived connection for testing addresses',
  '           "addr"   - address fetch; short-lived connection for requesting addresses',
  '           "priv"   - private broadcast; short-lived connection for broadcasting our transactions',
  '  net      Network the peer connected through ("ipv4", "ipv6", "onion", "i2p", "cjdns", or "npr" (not publicly routable))',
  '  serv     Services offered by the peer',
  '           "n" - NETWORK: peer can serve the full block chain',
  '           "b" - BLOOM: peer can handle bloom-filtered connections (see BIP 111)',
  '           "w" - WITNESS: peer can be asked for blocks and transactions with witness data (SegWit)',
  '           "c" - COMPACT_FILTERS: peer can handle basic block filter requests (see BIPs 157 and 158)',
  '           "l" - NETWORK_LIMITED: peer limited to serving only the last 288 blocks (~2 days)',
  '           "2" - P2P_V2: peer supports version 2 P2P transport protocol, as defined in BIP 324',
  '           "u" - UNKNOWN: unrecognized bit flag',
  '  v        Version of transport protocol used for the connection',
  '  mping    Minimum observed ping time, in milliseconds (ms)',
  '  ping     Last observed ping time, in milliseconds (ms)',
  '  send     Time since last message sent to the peer, in seconds',
  '  recv     Time since last message received from the peer, in seconds',
  '  txn      Time since last novel transaction received from the peer and accepted into our mempool, in minutes',
  '           "*" - we do not relay transactions to this peer (getpeerinfo "relaytxes" is false)',
  '  blk      Time since last novel block passing initial validity checks received from the peer, in minutes',
  '  hb       High-bandwidth BIP152 compact block relay',
  '           "." (to)   - we selected the peer as a high-bandwidth peer',
  '           "*" (from) - the peer selected us as a high-bandwidth peer',
  '  addrp    Total number of addresses processed, excluding those dropped due to rate limiting',
  '           "." - we do not relay addresses to this peer (getpeerinfo "addr_relay_enabled" is false)',
  '  addrl    Total number of addresses dropped due to rate limiting',
  '  age      Duration of connection to the peer, in minutes',
  '  asmap    Mapped AS (Autonomous System) number at the end of the BGP route to the peer, used for diversifying',
  '           peer selection (only displayed if the -asmap config option is set)',
  '  id       Peer index, in increasing order of peer connections since node startup',
  '  address  IP address and port of the peer',
  '  version  Peer version and subversion concatenated, e.g. "70016/Satoshi:21.0.0/"',
  '',
  '* The peer counts table displays the number of peers for each reachable network as well as',
  '  the number of block relay peers and manual peers.',
  '',
  '* The local addresses table lists each local address broadcast by the node, the port, and the score.',
  '',
  'Examples:',
  '',
  'Peer counts table of reachable networks and list of local addresses',
  `> ${CLIENT_PROGRAM} -netinfo`,
  '',
  'The same, preceded by a peers listing without address and version columns',
  `> ${CLIENT_PROGRAM} -netinfo 1`,
  '',
  'Full dashboard',
  `> ${CLIENT_PROGRAM} -netinfo ${NETINFO_MAX_LEVEL}`,
  '',
  'Full dashboard, but with outbound peers only',
  `> ${CLIENT_PROGRAM} -netinfo ${NETINFO_MAX_LEVEL} outonly`,
  '',
  'Full live dashboard, adjust --interval or --no-title as needed (Linux)',
  `> watch --interval 1 --no-title ${CLIENT_PROGRAM} -netinfo ${NETINFO_MAX_LEVEL}`,
  '',
  'See this help',
  `> ${CLIENT_PROGRAM} -netinfo help`,
  '',
].join('\n');
