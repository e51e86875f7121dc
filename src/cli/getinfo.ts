/**
 * -getinfo, as bitcoin-cli v31.0 builds it: one batch of getnetworkinfo,
 * getblockchaininfo, getwalletinfo and getbalances; the balances of every loaded wallet
 * when several are loaded and no -rpcwallet is given; then Core's human-readable layout
 * (colours with -color, or by default when stdout is a terminal). The wallet calls may
 * fail (no wallet): their lines are then left out. A failing network or chain call is
 * the error that is printed.
 */
import { CliError, rpcConvertValues } from './convert.js';
import { connectAndCallRpc, DefaultRequestHandler, jsonRpcReply, jsonRpcRequest, type RequestHandler, type RpcContext } from './rpc-call.js';
import {
  at,
  findValue,
  getInt,
  getKeys,
  getReal,
  getStr,
  getValStr,
  getValues,
  isNull,
  NULL,
  pushKV,
  uvArr,
  uvBool,
  uvObj,
  uvStr,
  type UniObject,
  type UniValue,
} from './univalue.js';

/** JSONRPCProcessBatchReply: the replies of a batch ordered by their numeric ids. */
export function processBatchReply(reply: UniValue): UniValue[] {
  if (reply.type !== 'arr') throw new CliError('Batch must be an array');
  const batch: UniValue[] = reply.values.map(() => NULL);
  for (const rec of reply.values) {
    if (rec.type !== 'obj') throw new CliError('Batch member must be an object');
    const id = getInt(findValue(rec, 'id'));
    if (id < 0 || id >= batch.length) throw new CliError('Batch member id is larger than batch size');
    batch[id] = rec;
  }
  return batch;
}

const ID_NETWORKINFO = 0;
const ID_BLOCKCHAININFO = 1;
const ID_WALLETINFO = 2;
const ID_BALANCES = 3;

/** GetinfoRequestHandler. */
export class GetinfoRequestHandler implements RequestHandler {
  prepareRequest(_method: string, words: readonly string[]): UniValue {
    if (words.length > 0) throw new CliError('-getinfo takes no arguments');
    return uvArr([
      jsonRpcRequest('getnetworkinfo', NULL, ID_NETWORKINFO),
      jsonRpcRequest('getblockchaininfo', NULL, ID_BLOCKCHAININFO),
      jsonRpcRequest('getwalletinfo', NULL, ID_WALLETINFO),
      jsonRpcRequest('getbalances', NULL, ID_BALANCES),
    ]);
  }

  processReply(reply: UniValue): UniValue {
    const batch = processBatchReply(reply);
    const part = (id: number, key: string) => findValue(batch[id] ?? NULL, key);
    // Errors of getnetworkinfo and getblockchaininfo are the answer; the wallet calls may fail.
    if (!isNull(part(ID_NETWORKINFO, 'error'))) return batch[ID_NETWORKINFO]!;
    if (!isNull(part(ID_BLOCKCHAININFO, 'error'))) return batch[ID_BLOCKCHAININFO]!;
    const network = part(ID_NETWORKINFO, 'result');
    const chain = part(ID_BLOCKCHAININFO, 'result');
    const wallet = part(ID_WALLETINFO, 'result');
    const balances = part(ID_BALANCES, 'result');
    const result = uvObj([
      ['version', findValue(network, 'version')],
      ['blocks', findValue(chain, 'blocks')],
      ['headers', findValue(chain, 'headers')],
      ['verificationprogress', findValue(chain, 'verificationprogress')],
      ['timeoffset', findValue(network, 'timeoffset')],
      [
        'connections',
        uvObj([
          ['in', findValue(network, 'connections_in')],
          ['out', findValue(network, 'connections_out')],
          ['total', findValue(network, 'connections')],
        ]),
      ],
      ['networks', findValue(network, 'networks')],
      ['difficulty', findValue(chain, 'difficulty')],
      ['chain', findValue(chain, 'chain')],
    ]);
    if (!isNull(wallet)) {
      pushKV(result, 'has_wallet', uvBool(true));
      pushKV(result, 'keypoolsize', findValue(wallet, 'keypoolsize'));
      pushKV(result, 'walletname', findValue(wallet, 'walletname'));
      const unlocked = findValue(wallet, 'unlocked_until');
      if (!isNull(unlocked)) pushKV(result, 'unlocked_until', unlocked);
    }
    if (!isNull(balances)) pushKV(result, 'balance', findValue(findValue(balances, 'mine'), 'trusted'));
    pushKV(result, 'relayfee', findValue(network, 'relayfee'));
    pushKV(result, 'warnings', findValue(network, 'warnings'));
    return jsonRpcReply(result, NULL, 1);
  }
}

/**
 * GetWalletBalances: with more than one wallet loaded, the trusted balance of each
 * (listwallets, then getbalances on each wallet's endpoint) as `balances`.
 */
export async function addWalletBalances(ctx: RpcContext, result: UniObject): Promise<void> {
  const handler = new DefaultRequestHandler(rpcConvertValues);
  const listwallets = await connectAndCallRpc(ctx, handler, 'listwallets', []);
  if (!isNull(findValue(listwallets, 'error'))) return;
  const wallets = findValue(listwallets, 'result');
  if (wallets.type !== 'arr' && wallets.type !== 'obj') return;
  if (wallets.values.length <= 1) return;
  const balances = uvObj();
  for (const wallet of wallets.values) {
    const name = getStr(wallet);
    const reply = await connectAndCallRpc(ctx, handler, 'getbalances', [], name);
    pushKV(balances, name, findValue(findValue(findValue(reply, 'result'), 'mine'), 'trusted'));
  }
  pushKV(result, 'balances', balances);
}

const COLORS = { reset: '\x1B[0m', green: '\x1B[32m', blue: '\x1B[34m', yellow: '\x1B[33m', magenta: '\x1B[35m', cyan: '\x1B[36m' };
const NO_COLORS = { reset: '', green: '', blue: '', yellow: '', magenta: '', cyan: '' };

/** GetProgressBar: one ▒ per started 5% done, one ░ per started 5% to go. */
export function progressBar(progress: number): string {
  if (progress < 0 || progress > 1) return '';
  const INCREMENT = 0.05;
  let bar = '';
  for (let i = 0; i < progress / INCREMENT; ++i) bar += '\u2592';
  for (let i = 0; i < (1 - progress) / INCREMENT; ++i) bar += '\u2591';
  return bar;
}

/**
 * ParseGetInfoResult: the -getinfo object as Core's text. `color` is the -color setting;
 * `stdoutIsTerminal` decides 'auto'.
 */
export function formatGetInfo(result: UniValue, color: string, stdoutIsTerminal: boolean): string {
  let colorize = stdoutIsTerminal;
  if (color === 'always') colorize = true;
  else if (color === 'never') colorize = false;
  else if (color !== 'auto') throw new CliError('Invalid value for -color option. Valid values: always, auto, never.');
  const c = colorize ? COLORS : NO_COLORS;
  const v = (key: string) => getValStr(findValue(result, key));

  let out = `${c.blue}Chain: ${v('chain')}${c.reset}\n`;
  out += `Blocks: ${v('blocks')}\n`;
  out += `Headers: ${v('headers')}\n`;
  const progress = getReal(findValue(result, 'verificationprogress'));
  // The bar is shown only below 99%.
  const bar = progress < 0.99 ? progressBar(progress) + ' ' : '';
  out += `Verification progress: ${bar}${(progress * 100).toFixed(4)}%\n`;
  out += `Difficulty: ${v('difficulty')}\n\n`;

  const connections = findValue(result, 'connections');
  const conn = (key: string) => getValStr(findValue(connections, key));
  out += `${c.green}Network: in ${conn('in')}, out ${conn('out')}, total ${conn('total')}${c.reset}\n`;
  out += `Version: ${v('version')}\n`;
  out += `Time offset (s): ${v('timeoffset')}\n`;

  // Each proxy once, in first-seen order, with the networks that use it.
  const proxies = new Map<string, string[]>();
  for (const network of getValues(findValue(result, 'networks'))) {
    const proxy = getValStr(findValue(network, 'proxy'));
    if (proxy === '') continue;
    const names = proxies.get(proxy) ?? [];
    names.push(getValStr(findValue(network, 'name')));
    proxies.set(proxy, names);
  }
  const proxyList = [...proxies].map(([proxy, names]) => `${proxy} (${names.join(', ')})`);
  out += `Proxies: ${proxyList.length === 0 ? 'n/a' : proxyList.join(', ')}\n`;
  out += `Min tx relay fee rate (BTC/kvB): ${v('relayfee')}\n\n`;

  if (!isNull(findValue(result, 'has_wallet'))) {
    const walletname = v('walletname');
    out += `${c.magenta}Wallet: ${walletname === '' ? '""' : walletname}${c.reset}\n`;
    out += `Keypool size: ${v('keypoolsize')}\n`;
    if (!isNull(findValue(result, 'unlocked_until'))) out += `Unlocked until: ${v('unlocked_until')}\n`;
  }
  if (!isNull(findValue(result, 'balance'))) out += `${c.cyan}Balance:${c.reset} ${v('balance')}\n\n`;

  const balances = findValue(result, 'balances');
  if (!isNull(balances)) {
    out += `${c.cyan}Balances${c.reset}\n`;
    const keys = getKeys(balances);
    const amount = (i: number) => getValStr(at(balances, i));
    const width = Math.max(10, ...keys.map((_, i) => amount(i).length));
    keys.forEach((wallet, i) => {
      out += `${amount(i).padStart(width)} ${wallet === '' ? '""' : wallet}\n`;
    });
    out += '\n';
  }

  const warnings = v('warnings');
  out += `${c.yellow}Warnings:${c.reset} ${warnings === '' ? '(none)' : warnings}`;
  return out;
}

/** The -getinfo result, turned into its text in place of the object. */
export async function getInfoText(ctx: RpcContext, result: UniValue, wallet: string | undefined, color: string, stdoutIsTerminal: boolean): Promise<UniValue> {
  if (!isNull(findValue(result, 'error'))) return result;
  if (wallet === undefined && result.type === 'obj') await addWalletBalances(ctx, result);
  return uvStr(formatGetInfo(result, color, stdoutIsTerminal));
}
