/**
 * `help` on tsbtcd and the reference bitcoind v31.0, side by side: the listing is
 * bitcoind's less the commands tsbtcd does not serve yet, and `help <command>` is byte
 * for byte bitcoind's for every non-wallet command both serve, listed or hidden — with
 * and without -deprecatedrpc=warnings, which reshapes three results. `stop` differs only
 * in the product name ("Bitcoin Core" / "tsbtcd"). The wallet stubs are left out: the
 * reference runs without a wallet.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { cleanupsAfterTests, NODE_STARTERS, skipUnless, startTsbtcd, type NodeUnderTest } from './node-under-test.js';

const cleanups = cleanupsAfterTests();
const bitcoind = NODE_STARTERS.find(([name]) => name === 'bitcoind')![1];

/** Core v31's hidden commands: `help` does not list them, `help <command>` describes them. */
const HIDDEN = [
  'addconnection',
  'addpeeraddress',
  'echo',
  'echoipc',
  'echojson',
  'estimaterawfee',
  'generate',
  'generateblock',
  'generatetoaddress',
  'generatetodescriptor',
  'getorphantxs',
  'getrawaddrman',
  'invalidateblock',
  'mockscheduler',
  'reconsiderblock',
  'sendmsgtopeer',
  'setmocktime',
  'syncwithvalidationinterfacequeue',
];

interface Listed {
  readonly category: string;
  readonly method: string;
  readonly synopsis: string;
}

/** `help`'s listing: each synopsis under its `== Category ==` header. */
function parseListing(text: string): Listed[] {
  const out: Listed[] = [];
  let category = '';
  for (const line of text.split('\n')) {
    const header = /^== (.+) ==$/.exec(line);
    if (header) category = header[1]!;
    else if (line !== '') out.push({ category, method: line.split(' ')[0]!, synopsis: line });
  }
  return out;
}

async function knows(node: NodeUnderTest, method: string): Promise<boolean> {
  return !(await node.call<string>('help', [method])).startsWith('help: unknown command');
}

for (const args of [[], ['-deprecatedrpc=warnings']]) {
  const flags = args.length === 0 ? '' : ` with ${args.join(' ')}`;
  test(`help${flags}: tsbtcd prints bitcoind's text for every non-wallet command both serve`, { skip: skipUnless(bitcoind) }, async (t) => {
    const [ts, core] = await Promise.all([startTsbtcd({ args }), bitcoind!({ args })]);
    cleanups.push(() => ts.stop(), () => core.stop());

    // fundrawtransaction is a wallet command Core lists under Rawtransactions; the reference runs without a wallet.
    const tsListing = parseListing(await ts.call<string>('help')).filter((e) => e.category !== 'Wallet' && e.method !== 'fundrawtransaction');
    const coreListing = parseListing(await core.call<string>('help'));
    const served = new Set(tsListing.map((e) => e.method));
    assert.deepEqual(tsListing, coreListing.filter((e) => served.has(e.method)), 'the listing is bitcoind’s less the commands tsbtcd lacks');

    const hidden: string[] = [];
    for (const method of HIDDEN) if ((await knows(ts, method)) && (await knows(core, method))) hidden.push(method);
    const compared = [...tsListing.map((e) => e.method).filter((m) => m !== 'stop'), ...hidden];
    for (const method of compared) assert.equal(await ts.call<string>('help', [method]), await core.call<string>('help', [method]), method);

    const stop = await ts.call<string>('help', ['stop']);
    assert.equal(stop.replaceAll('tsbtcd', 'Bitcoin Core'), await core.call<string>('help', ['stop']), 'stop, but for the product name');
    assert.equal(await ts.call<string>('help', ['nosuchcommand']), await core.call<string>('help', ['nosuchcommand']));
    t.diagnostic(`${compared.length} commands identical (${hidden.length} of them hidden); bitcoind lists ${coreListing.length - tsListing.length} that tsbtcd lacks`);
  });
}
