/**
 * The P2P options as Core's init derives them (InitParameterInteraction and AppInitMain's
 * connman options): -listen (off by default with -connect or -proxy, forced on by -bind
 * or -whitebind), -port, -bind / -whitebind, -connect (-connect=0 means no automatic
 * connections and no -connect peers), -addnode, -maxconnections (default 125), -blocksonly,
 * -networkactive and -whitelist permissions.
 */
import { parseByteUnits, splitHostPort, type PermissionName, type WhitelistEntry } from '../net/index.js';
import { isIP } from 'node:net';
import { parseSubnet } from '../primitives/index.js';
import type { NodeConfig } from './config.js';
import { InitError } from './config.js';

export interface NetOptions {
  readonly listen: boolean;
  readonly port: number;
  readonly binds: { host: string; port: number; permissions?: PermissionName[]; optional?: boolean }[];
  readonly connect: string[];
  readonly addNodes: string[];
  readonly maxConnections: number;
  readonly blocksOnly: boolean;
  readonly networkActive: boolean;
  readonly whitelist: WhitelistEntry[];
  readonly maxUploadTarget: number;
  /** -proxy (SOCKS5) for every outbound connection. */
  readonly proxy: { host: string; port: number; randomizeCredentials: boolean } | undefined;
}

/** Core's -proxy: "host[:port]" (port 9050 by default); empty or 0 is none. */
export function proxyOption(config: NodeConfig): NetOptions['proxy'] {
  const text = config.args.getArg('proxy') ?? '';
  if (text === '' || text === '0') return undefined;
  const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(text);
  const plain = /^([^:]+)(?::(\d+))?$/.exec(text);
  const m = bracketed ?? plain;
  const port = m?.[2] === undefined ? 9050 : Number(m[2]);
  if (!m || port < 1 || port > 65535) throw new InitError(`Invalid -proxy address or hostname: '${text}'`);
  return { host: m[1]!, port, randomizeCredentials: config.args.getBoolArg('proxyrandomize', true) };
}

const ALL_PERMISSIONS: readonly PermissionName[] = ['bloomfilter', 'noban', 'forcerelay', 'relay', 'mempool', 'download', 'addr'];

/** Core's NetPermissions::TryParse of "perm,perm@rest" ("implicit" when there is no @). */
function parsePermissions(text: string, config: NodeConfig): { permissions: PermissionName[]; rest: string } {
  const at = text.indexOf('@');
  const set = new Set<PermissionName>();
  if (at === -1) {
    // Core's implicit permissions: noban and mempool, relay unless -whitelistrelay=0, forcerelay with -whitelistforcerelay.
    set.add('noban').add('mempool');
    if (config.args.getBoolArg('whitelistrelay', true)) set.add('relay');
    if (config.args.getBoolArg('whitelistforcerelay', false)) set.add('forcerelay');
  } else {
    for (const name of text.slice(0, at).split(',')) {
      const trimmed = name.trim();
      if (trimmed === '') continue;
      if (trimmed === 'all') for (const p of ALL_PERMISSIONS) set.add(p);
      else if ((ALL_PERMISSIONS as readonly string[]).includes(trimmed)) set.add(trimmed as PermissionName);
      else throw new InitError(`Invalid P2P permission: '${trimmed}'`);
    }
  }
  // noban implies download; forcerelay implies relay (Core's flag values include them).
  if (set.has('noban')) set.add('download');
  if (set.has('forcerelay')) set.add('relay');
  return { permissions: ALL_PERMISSIONS.filter((p) => set.has(p)), rest: at === -1 ? text : text.slice(at + 1) };
}

export function netOptions(config: NodeConfig): NetOptions {
  const args = config.args;
  // Accepting it would relay the node's own transactions to every peer: a privacy leak where
  // the operator asked for the opposite.
  if (args.getBoolArg('privatebroadcast', false)) throw new InitError('-privatebroadcast is not supported by tsbtcd: it would relay transactions publicly instead of privately.');
  const connectArgs = args.getArgs('connect');
  // -connect=0 (or -noconnect) leaves the list empty and turns automatic connections off.
  const connect = connectArgs.filter((c) => c !== '0' && c !== '');
  const port = args.getIntArg('port', config.network.defaultPort);
  if (port < 1 || port > 65535) throw new InitError(`Invalid port specified in -port: '${args.getArg('port')}'`);
  const bindArgs = args.getArgs('bind');
  const whiteBindArgs = args.getArgs('whitebind');
  // Core's parameter interaction, in its order: -bind/-whitebind soft-set -listen=1 first,
  // then -connect (any value, 0 included) and -proxy soft-set -listen=0.
  const listenDefault = bindArgs.length > 0 || whiteBindArgs.length > 0 ? true : connectArgs.length === 0 && (args.getArg('proxy') ?? '') === '';
  const listen = args.getBoolArg('listen', listenDefault);
  if (!listen && (bindArgs.length > 0 || whiteBindArgs.length > 0)) throw new InitError('Cannot set -bind or -whitebind together with -listen=0');
  const binds: NetOptions['binds'] = [];
  for (const text of bindArgs) {
    // "=onion" binds are for Tor's incoming connections: not served here.
    const plain = text.replace(/=onion$/, '');
    const bind = splitHostPort(plain, port);
    if (!bind) throw new InitError(`Cannot resolve -bind address: '${text}'`);
    binds.push(bind);
  }
  for (const text of whiteBindArgs) {
    const { permissions, rest } = parsePermissions(text, config);
    const bind = splitHostPort(rest, port);
    if (!bind) throw new InitError(`Cannot resolve -whitebind address: '${text}'`);
    binds.push({ ...bind, permissions });
  }
  if (binds.length === 0) binds.push({ host: '::', port, optional: true }, { host: '0.0.0.0', port });
  const whitelist: WhitelistEntry[] = [];
  for (const text of args.getArgs('whitelist')) {
    const { permissions, rest } = parsePermissions(text, config);
    const subnet = parseSubnet(rest);
    if (!subnet) throw new InitError(`Invalid netmask specified in -whitelist: '${rest}'`);
    whitelist.push({ subnet, permissions });
  }
  if (args.getBoolArg('peerblockfilters', false) && !config.blockFilterIndex) throw new InitError('Cannot set -peerblockfilters without -blockfilterindex.');
  if (args.getIntArg('peertimeout', 60) < 1) throw new InitError('peertimeout must be a positive integer.');
  for (const text of args.getArgs('externalip')) {
    // Core resolves names here; tsbtcd takes numeric addresses only.
    if (!isIP(text.replace(/^\[(.*)\]$/, '$1'))) throw new InitError(`Cannot resolve -externalip address: '${text}'`);
  }
  const maxConnections = Math.max(0, args.getIntArg('maxconnections', 125));
  const uploadText = args.getArg('maxuploadtarget') ?? '0';
  const maxUploadTarget = parseByteUnits(uploadText);
  if (maxUploadTarget === undefined) throw new InitError(`Unable to parse -maxuploadtarget: '${uploadText}'`);
  return {
    listen,
    port,
    binds,
    connect,
    addNodes: args.getArgs('addnode'),
    maxConnections,
    blocksOnly: args.getBoolArg('blocksonly', false),
    networkActive: args.getBoolArg('networkactive', true),
    whitelist,
    maxUploadTarget,
    proxy: proxyOption(config),
  };
}
