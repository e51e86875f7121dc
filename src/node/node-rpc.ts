/**
 * The coordinator's RPC methods that need no chainstate: the pure Util and
 * Rawtransactions methods (front-ends register the same ones), getmemoryinfo and
 * syncwithvalidationinterfacequeue. The Wallet family comes with the wallet service.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { createRequire } from 'node:module';
import {
  formatSubVersion,
  nodeMethods,
  pureRpcMethods,
  signerMethods,
  SERVICE_FLAGS,
  type NetworkFacts,
  type NetworkName,
  type NodeFacts,
  type RpcMethod,
} from '../rpc/index.js';
import type { NodeConfig } from './config.js';
import { PRODUCT_NAME } from './coordinator.js';
import { proxyOption } from './net-options.js';
import { networkClass } from '../net/index.js';
import { isIP } from 'node:net';

function packageVersion(): string {
  return (createRequire(import.meta.url)('../../../package.json') as { version: string }).version;
}

/** Core's ParseNetwork names for -onlynet ("tor" is onion). */
function networkName(text: string): NetworkName | undefined {
  const lower = text.toLowerCase();
  if (lower === 'tor') return 'onion';
  return (['ipv4', 'ipv6', 'onion', 'i2p', 'cjdns'] as const).find((n) => n === lower);
}

/** Core's LOCAL_MANUAL score of an -externalip address. */
const LOCAL_MANUAL = 4;

/**
 * Core's -externalip handling (AddLocal with LOCAL_MANUAL): each numeric address at the
 * listening port, kept only when routable and on a reachable network.
 */
function externalAddresses(config: NodeConfig, reachable: ReadonlySet<NetworkName>): { address: string; port: number; score: number }[] {
  const port = config.args.getIntArg('port', config.network.defaultPort);
  const out: { address: string; port: number; score: number }[] = [];
  for (const text of config.args.getArgs('externalip')) {
    const bare = text.replace(/^\[(.*)\]$/, '$1');
    // Not an address: the P2P service's start stops the node (net-options.ts).
    if (!isIP(bare)) continue;
    const net = networkClass(bare);
    if (net === 'not_publicly_routable' || !reachable.has(net)) continue;
    if (!out.some((a) => a.address === bare)) out.push({ address: bare, port, score: LOCAL_MANUAL });
  }
  return out;
}

/** What getnetworkinfo reports that does not change, from the options Core derives it from at init. */
export function networkFacts(config: NodeConfig): NetworkFacts {
  const args = config.args;
  let services = SERVICE_FLAGS.NETWORK_LIMITED | SERVICE_FLAGS.WITNESS;
  if (args.getBoolArg('peerbloomfilters', false)) services |= SERVICE_FLAGS.BLOOM;
  if (args.getBoolArg('peerblockfilters', false)) services |= SERVICE_FLAGS.COMPACT_FILTERS;
  if (config.prune === 0) services |= SERVICE_FLAGS.NETWORK;
  // NODE_P2P_V2 is not offered: tsbtcd speaks only the v1 transport (BIP324 is not built),
  // and a peer told otherwise would try v2 first and fall back only after a failed attempt.

  const onion = args.getArg('onion');
  const possible = new Set<NetworkName>(['ipv4', 'ipv6']);
  if ((onion !== undefined && onion !== '' && onion !== '0') || ((args.getArg('proxy') ?? '') !== '' && onion !== '0')) possible.add('onion');
  if ((args.getArg('i2psam') ?? '') !== '') possible.add('i2p');
  if (args.isArgSet('cjdnsreachable') && args.getBoolArg('cjdnsreachable', false)) possible.add('cjdns');
  const only = args.getArgs('onlynet').map(networkName).filter((n): n is NetworkName => n !== undefined);
  const reachable = only.length > 0 ? new Set([...possible].filter((n) => only.includes(n))) : possible;

  // The same policy getmempoolinfo reports (-minrelaytxfee, -incrementalrelayfee).
  const policy = config.mempoolPolicy;
  // -proxy serves IPv4, IPv6, CJDNS and onion (unless -onion names another, or -onion=0), as Core sets it.
  const proxy = proxyOption(config);
  const proxies: NetworkFacts['proxies'] = {};
  if (proxy) {
    const entry = { address: proxy.host.includes(':') ? `[${proxy.host}]:${proxy.port}` : `${proxy.host}:${proxy.port}`, randomizeCredentials: proxy.randomizeCredentials };
    proxies.ipv4 = entry;
    proxies.ipv6 = entry;
    proxies.cjdns = entry;
    if (onion === undefined || onion === '') proxies.onion = entry;
  }
  return {
    proxies,
    localAddresses: externalAddresses(config, reachable),
    subversion: formatSubVersion(PRODUCT_NAME, packageVersion(), args.getArgs('uacomment')),
    localServices: services,
    localRelay: !args.getBoolArg('blocksonly', false),
    networkActive: args.getBoolArg('networkactive', true),
    reachable,
    relayFee: policy.minRelayTxFee,
    incrementalFee: policy.incrementalRelayFee,
  };
}

/** Core's GetWalletDir(). */
export function walletDir(config: NodeConfig): string {
  const configured = config.args.getArg('walletdir');
  if (configured !== undefined) {
    const resolved = path.resolve(configured);
    return fs.existsSync(resolved) && fs.statSync(resolved).isDirectory() ? resolved : '';
  }
  const wallets = path.join(config.netDir, 'wallets');
  return fs.existsSync(wallets) && fs.statSync(wallets).isDirectory() ? wallets : config.netDir;
}

export function nodeRpcMethods(config: NodeConfig, facts: NodeFacts): RpcMethod[] {
  // getnetworkinfo and getconnectioncount come with the P2P service (net-service.ts).
  const methods = [...pureRpcMethods(config.chain), ...nodeMethods(), ...signerMethods(config.args.getArg('signer') ?? '', config.chain)];
  return methods;
}
