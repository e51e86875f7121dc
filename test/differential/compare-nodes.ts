/**
 * The differential suite's engine: the rich chain built on a builder bitcoind, replayed into
 * the reference bitcoind and into tsbtcd (same options, same mock time), then every request
 * of the catalogue sent to both, one after the other, and the answers compared — status,
 * Content-Type and body bytes (JSON key order and number spelling included); members listed
 * in node-local.ts are compared for JSON type only.
 */
import { readFileSync, rmSync } from 'node:fs';
import * as http from 'node:http';
import { join } from 'node:path';
import { BitcoindProcess } from '../integration/bitcoind-process.js';
import { Daemon, tempDir } from '../integration/daemon-harness.js';
import { knownDifference } from './known-differences.js';
import { maskNodeLocal, viewAnswers } from './node-local.js';
import { catalogue, type ChainFacts, type DiffRequest } from './request-catalogue.js';
import { buildRichChain, replayRichChain } from './rich-chain.js';

/**
 * Both nodes run with these: REST, the indexes tsbtcd has, no wallet, and no BIP324
 * transport (tsbtcd has none yet, so bitcoind would add P2P_V2 to its services).
 */
export const COMPARED_NODE_OPTIONS = ['-rest', '-txindex', '-blockfilterindex=1', '-disablewallet', '-connect=0', '-v2transport=0'];

export interface Answer {
  readonly status: number;
  readonly contentType: string;
  readonly body: Buffer;
}

export interface Difference {
  readonly request: DiffRequest;
  readonly tsbtcd: Answer;
  readonly bitcoind: Answer;
}

export interface DifferentialReport {
  readonly requests: number;
  readonly identical: number;
  readonly differences: readonly Difference[];
  /** Methods bitcoind's help lists that tsbtcd's does not. */
  readonly missingMethods: readonly string[];
}

/** A JSON-RPC call as a request both nodes are sent, grouped by method. */
export function rpcCall(method: string, params: unknown): DiffRequest {
  return {
    label: `${method} ${JSON.stringify(params)}`,
    group: method,
    method: 'POST',
    path: '/',
    body: JSON.stringify({ jsonrpc: '1.0', id: 'c', method, params }),
    auth: true,
  };
}

export function exchange(port: number, cookie: string, request: DiffRequest): Promise<Answer> {
  const headers: Record<string, string> = {};
  if (request.auth) headers.Authorization = `Basic ${Buffer.from(cookie).toString('base64')}`;
  if (request.body !== undefined) headers['Content-Type'] = 'application/json';
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, method: request.method, path: request.path, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, contentType: String(res.headers['content-type'] ?? ''), body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.setTimeout(120_000, () => req.destroy(new Error(`${request.label}: no answer within 120 s`)));
    req.end(request.body);
  });
}

/** Sends one request to tsbtcd and to bitcoind, in that order, and returns both answers. */
export type SendToBoth = (request: DiffRequest) => Promise<[tsbtcd: Answer, bitcoind: Answer]>;

/** Sends one request to one of the two nodes (to set up state, such as a chain, on one side). */
export interface SendToEach {
  tsbtcd(request: DiffRequest): Promise<Answer>;
  bitcoind(request: DiffRequest): Promise<Answer>;
}

/**
 * Starts the reference bitcoind and tsbtcd on fresh regtest datadirs, without wallet or
 * connections (and with `args`), runs `body` with a sender to both, and stops both however it ends.
 */
export async function withBareNodes<T>(bitcoind: string, body: (send: SendToBoth, each: SendToEach) => Promise<T>, args: readonly string[] = []): Promise<T> {
  const core = await BitcoindProcess.start(bitcoind, ['-connect=0', '-disablewallet', ...args]);
  const ts = await Daemon.start({ args: ['-disablewallet', ...args] });
  try {
    const coreCookie = readFileSync(join(core.datadir, 'regtest', '.cookie'), 'utf8').trim();
    const tsCookie = readFileSync(join(ts.datadir, 'regtest', '.cookie'), 'utf8').trim();
    const each: SendToEach = {
      tsbtcd: (request) => exchange(ts.port, tsCookie, request),
      bitcoind: (request) => exchange(core.rpc.port, coreCookie, request),
    };
    return await body(async (request) => [await each.tsbtcd(request), await each.bitcoind(request)], each);
  } finally {
    await ts.cleanup();
    await core.stop();
  }
}

/** The body as compared: JSON with node-local members masked where the group has any (and `result` in place of the reply's when a view changed it), else the bytes. */
function comparable(request: DiffRequest, answer: Answer, result?: { value: unknown }): string {
  const text = answer.body.toString('latin1');
  if (!answer.contentType.includes('json')) return text;
  try {
    const parsed = JSON.parse(answer.body.toString('utf8')) as unknown;
    if (isRpcReply(request, parsed)) {
      const masked = maskNodeLocal(request.group, result ? result.value : parsed.result);
      return masked === parsed.result && !result ? text : JSON.stringify({ ...parsed, result: masked });
    }
    const masked = maskNodeLocal(request.group, parsed);
    return masked === parsed ? text : JSON.stringify(masked);
  } catch {
    return text;
  }
}

function isRpcReply(request: DiffRequest, parsed: unknown): parsed is { result: unknown } {
  return request.path === '/' && parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed) && 'result' in parsed;
}

/** JSON-RPC results through the group's answer views (node-local.ts); undefined when not both are results. */
function viewedResults(request: DiffRequest, ours: Answer, theirs: Answer): [{ value: unknown }, { value: unknown }] | undefined {
  try {
    const [a, b] = [JSON.parse(ours.body.toString('utf8')) as unknown, JSON.parse(theirs.body.toString('utf8')) as unknown];
    if (!isRpcReply(request, a) || !isRpcReply(request, b)) return undefined;
    const [va, vb] = viewAnswers(request.group, a.result, b.result);
    // Either changed: both are compared as re-serialised JSON, so that neither is compared as raw bytes against the other's JSON.
    return va === a.result && vb === b.result ? undefined : [{ value: va }, { value: vb }];
  } catch {
    return undefined;
  }
}

/** `ours` is tsbtcd's answer, `theirs` bitcoind's. */
export function sameAnswer(request: DiffRequest, ours: Answer, theirs: Answer): boolean {
  if (ours.status !== theirs.status || ours.contentType !== theirs.contentType) return false;
  const viewed = ours.contentType.includes('json') ? viewedResults(request, ours, theirs) : undefined;
  return comparable(request, ours, viewed?.[0]) === comparable(request, theirs, viewed?.[1]);
}

async function facts(call: (method: string, params?: unknown[]) => Promise<any>, chain: ChainFacts['chain']): Promise<ChainFacts> {
  const height = await call('getblockcount');
  const hashes: string[] = [];
  for (let h = 0; h <= height; h++) hashes.push(await call('getblockhash', [h]));
  const tips = (await call('getchaintips')) as { hash: string; branchlen: number; status: string }[];
  const staleHashes: string[] = [];
  for (const tip of tips.filter((t) => t.status !== 'active')) {
    let hash = tip.hash;
    for (let i = 0; i < tip.branchlen; i++) {
      staleHashes.push(hash);
      hash = (await call('getblockheader', [hash])).previousblockhash;
    }
  }
  const confirmed: ChainFacts['confirmed'][number][] = [];
  const scripts = new Map<string, string>();
  for (let h = 1; h <= height; h++) {
    const block = await call('getblock', [hashes[h], 2]);
    for (const [i, tx] of (block.tx as any[]).entries()) {
      for (const out of tx.vout) if (!scripts.has(out.scriptPubKey.type)) scripts.set(out.scriptPubKey.type, out.scriptPubKey.hex);
      // Every coinbase of the last blocks and every other transaction (the early chain is all alike).
      if (i > 0 || h > height - 12) confirmed.push({ txid: tx.txid, blockhash: hashes[h]!, hex: tx.hex, outputs: tx.vout.length });
    }
  }
  const pool: ChainFacts['pool'][number][] = [];
  for (const txid of (await call('getrawmempool')) as string[]) {
    const tx = await call('getrawtransaction', [txid, 1]);
    pool.push({ txid, hex: tx.hex, outputs: tx.vout.length });
  }
  return { chain, height, hashes, staleHashes, confirmed, pool, scripts: [...scripts.values()] };
}

function helpMethods(help: string): string[] {
  return help
    .split('\n')
    .filter((line) => line !== '' && !line.startsWith('=='))
    .map((line) => line.split(' ')[0]!);
}

/** Builds, replays and compares; `sample` keeps every n-th request (1: all). */
export async function runDifferential(bitcoind: string, sample = 1, log: (line: string) => void = () => {}): Promise<DifferentialReport> {
  const chain = await buildRichChain(bitcoind);
  log(`rich chain: ${chain.blocks.length} blocks (stale branch included), ${chain.mempool.length} pool transactions`);
  const coreDir = tempDir();
  const core = await BitcoindProcess.start(bitcoind, COMPARED_NODE_OPTIONS, coreDir);
  let ts: Daemon | undefined;
  try {
    ts = await Daemon.start({ args: COMPARED_NODE_OPTIONS });
    const tsNode = ts;
    await replayRichChain(chain, (m, p) => core.call(m, p));
    await replayRichChain(chain, (m, p) => tsNode.call(m, p));
    // The indexes catch up in the background on both.
    for (const call of [(m: string) => core.call(m), (m: string) => tsNode.call(m)]) {
      for (let i = 0; i < 600; i++) {
        const info = (await call('getindexinfo')) as Record<string, { synced: boolean }>;
        if (Object.values(info).every((x) => x.synced)) break;
        await new Promise((r) => setTimeout(r, 100));
      }
    }
    const chainFacts = await facts((m, p) => core.call(m, p ?? []), chain);
    const coreMethods = helpMethods(await core.call<string>('help'));
    const tsMethods = new Set(helpMethods(await tsNode.call<string>('help')));
    const requests = catalogue(
      chainFacts,
      coreMethods.filter((m) => tsMethods.has(m)),
    ).filter((_, i) => i % sample === 0);
    const coreCookie = readFileSync(join(coreDir, 'regtest', '.cookie'), 'utf8').trim();
    const tsCookie = readFileSync(join(tsNode.datadir, 'regtest', '.cookie'), 'utf8').trim();
    const differences: Difference[] = [];
    for (const request of requests) {
      const fromCore = await exchange(core.rpc.port, coreCookie, request);
      const fromTs = await exchange(tsNode.port, tsCookie, request);
      if (!sameAnswer(request, fromTs, fromCore)) differences.push({ request, tsbtcd: fromTs, bitcoind: fromCore });
    }
    return { requests: requests.length, identical: requests.length - differences.length, differences, missingMethods: coreMethods.filter((m) => !tsMethods.has(m)) };
  } finally {
    await ts?.cleanup();
    await core.stop();
    rmSync(coreDir, { recursive: true, force: true });
  }
}

/** The report as lines: the totals, differences by group, and the first few in full. */
export function reportLines(report: DifferentialReport, detail = 30): string[] {
  const known = report.differences.filter((d) => knownDifference(d.request.label));
  const lines = [`${report.requests} requests: ${report.identical} identical, ${report.differences.length} different (${known.length} known, listed in known-differences.ts)`];
  const byGroup = new Map<string, number>();
  for (const d of report.differences) byGroup.set(d.request.group, (byGroup.get(d.request.group) ?? 0) + 1);
  for (const [group, n] of [...byGroup].sort((a, b) => b[1] - a[1])) lines.push(`  ${n} × ${group}`);
  if (report.missingMethods.length > 0) lines.push(`methods bitcoind serves and tsbtcd does not (${report.missingMethods.length}): ${report.missingMethods.join(' ')}`);
  for (const d of report.differences.slice(0, detail)) {
    // Both bodies from a little before the first byte that differs.
    const [a, b] = [d.tsbtcd.body.toString('utf8'), d.bitcoind.body.toString('utf8')];
    let at = 0;
    while (at < a.length && at < b.length && a[at] === b[at]) at++;
    const from = Math.max(0, at - 120);
    const show = (answer: Answer, text: string) => `${answer.status} ${answer.contentType} ${from > 0 ? '…' : ''}${text.slice(from, from + 400).replace(/\n/g, '\\n')}`;
    lines.push(`- ${d.request.label}`, `    tsbtcd:   ${show(d.tsbtcd, a)}`, `    bitcoind: ${show(d.bitcoind, b)}`);
  }
  return lines;
}
