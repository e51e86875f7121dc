/**
 * The RPC registry's argument handling and help text against Core's observed outputs:
 * named → positional mapping (holes, `args`, aliases, named-only options), count and
 * type errors, the one-line synopses and full help of jsonrpc.md's appendices.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  RpcError,
  RpcRegistry,
  RpcServer,
  checkArgTypes,
  defineRpcMethod,
  fullHelp,
  helpExampleCli,
  helpExampleRpc,
  namedToPositional,
  synopsis,
  type RpcArgSpec,
  type RpcMethod,
} from '../../src/rpc/index.js';

const method = (name: string, args: RpcArgSpec[], extra: Partial<RpcMethod> = {}): RpcMethod =>
  defineRpcMethod({ name, category: 'blockchain', description: 'd', args, results: [], examples: '', handler: (a) => a.raw, ...extra });

const getblock: RpcArgSpec[] = [
  { name: 'blockhash', type: 'hex', description: 'The block hash' },
  { name: 'verbosity|verbose', type: 'num', default: 1, description: '0 for hex-encoded data, ...' },
];

test('named parameters: holes become nulls, trailing ones are not sent, aliases, args, errors', () => {
  const echo = Array.from({ length: 10 }, (_, i): RpcArgSpec => ({ name: `arg${i}`, type: 'str', optional: true, description: '' }));
  assert.deepEqual(namedToPositional(echo, { named: [['arg1', 1]] }), [null, 1]);
  assert.deepEqual(namedToPositional(echo, { named: [['arg9', null]] }), new Array(10).fill(null));
  assert.deepEqual(namedToPositional(getblock, { named: [['args', ['h']], ['verbosity', 0]] }), ['h', 0]);
  assert.deepEqual(namedToPositional(getblock, { named: [['blockhash', 'h'], ['verbose', 2]] }), ['h', 2]);
  assert.throws(() => namedToPositional(getblock, { named: [['args', ['h']], ['blockhash', 'h']] }), {
    code: -8,
    message: 'Parameter blockhash specified twice both as positional and named argument',
  });
  assert.throws(() => namedToPositional(getblock, { named: [['blockhash', 'h'], ['blockhash', 'h']] }), {
    code: -8,
    message: 'Parameter blockhash specified multiple times',
  });
  assert.throws(() => namedToPositional(getblock, { named: [['blockhash', 'h'], ['foo', 1]] }), { code: -8, message: 'Unknown named parameter foo' });
  // The second alias given alongside the first is left over.
  assert.throws(() => namedToPositional(getblock, { named: [['blockhash', 'h'], ['verbosity', 1], ['verbose', 1]] }), {
    message: 'Unknown named parameter verbose',
  });
});

test('named-only options of an options object are gathered, and conflict with the object itself', () => {
  const specs: RpcArgSpec[] = [
    { name: 'txid', type: 'str', description: '' },
    { name: 'options', type: 'obj_named', optional: true, description: '', inner: [{ name: 'fee_rate', type: 'amount', optional: true, description: '' }] },
  ];
  assert.deepEqual(namedToPositional(specs, { named: [['txid', 't'], ['fee_rate', 5]] }), ['t', { fee_rate: 5 }]);
  assert.throws(() => namedToPositional(specs, { named: [['txid', 't'], ['fee_rate', 5], ['options', {}]] }), {
    message: 'Parameter options conflicts with parameter fee_rate',
  });
});

test('type errors name every mismatching position in Core\'s pretty JSON', () => {
  assert.throws(() => checkArgTypes([{ name: 'height', type: 'num', description: '' }], ['x']), {
    code: -3,
    message: 'Wrong type passed:\n{\n    "Position 1 (height)": "JSON value of type string is not of expected type number"\n}',
  });
  assert.throws(() => checkArgTypes(getblock, [null, true]), {
    message:
      'Wrong type passed:\n{\n    "Position 1 (blockhash)": "JSON value of type null is not of expected type string",\n    "Position 2 (verbosity|verbose)": "JSON value of type bool is not of expected type number"\n}',
  });
  assert.doesNotThrow(() => checkArgTypes(getblock, ['h', null]), 'null is fine for an optional argument');
  assert.doesNotThrow(() => checkArgTypes([{ name: 'a', type: 'amount', description: '' }], ['1.0']));
});

test('the server: warm-up before lookup, method not found, arg count → help text, handler errors', async () => {
  const registry = new RpcRegistry();
  const server = new RpcServer(registry);
  registry.register(
    method('getblock', getblock),
    method('boom', [], { handler: () => { throw new Error('kaput'); } }),
    method('typed', [{ name: 'n', type: 'num', optional: true, description: '' }], { handler: (a) => a.int('n') }),
  );
  assert.throws(() => registry.register(method('boom', [])), /already registered/);
  assert.deepEqual(await server.execute({ method: 'nosuch', params: [], user: 'u', wallet: undefined }), { error: { code: -28, message: 'RPC server started' } });
  server.setWarmupStatus('Loading block index…');
  assert.deepEqual(await server.execute({ method: 'getblock', params: [], user: 'u', wallet: undefined }), { error: { code: -28, message: 'Loading block index…' } });
  server.setWarmupFinished();
  assert.deepEqual(await server.execute({ method: 'nosuch', params: [], user: 'u', wallet: undefined }), { error: { code: -32601, message: 'Method not found' } });
  const few = await server.execute({ method: 'getblock', params: [], user: 'u', wallet: undefined });
  assert.deepEqual(few, { error: { code: -1, message: registry.fullHelp('getblock') } });
  assert.deepEqual(await server.execute({ method: 'getblock', params: ['h'], user: 'u', wallet: undefined }), { result: ['h'] });
  assert.deepEqual(await server.execute({ method: 'boom', params: [], user: 'u', wallet: undefined }), { error: { code: -1, message: 'kaput' } });
  assert.deepEqual(await server.execute({ method: 'typed', params: [1.5], user: 'u', wallet: undefined }), { error: { code: -1, message: 'JSON integer out of range' } });
  assert.deepEqual(await server.execute({ method: 'typed', params: [], user: 'u', wallet: undefined }), { error: { code: -1, message: 'RPC argument n has no value' } });
  assert.ok(new RpcError(-5, 'x') instanceof Error);
});

test('dispatch answers synchronously when the handler is synchronous, else with a promise; running commands are cleared either way', async () => {
  const registry = new RpcRegistry();
  const server = new RpcServer(registry);
  server.setWarmupFinished();
  let release: (v: string) => void = () => undefined;
  registry.register(
    method('now', [], { handler: () => 'sync' }),
    method('later', [], { handler: () => new Promise<string>((resolve) => (release = resolve)) }),
    method('fails', [], { handler: async () => { throw new RpcError(-8, 'late'); } }),
  );
  const call = (name: string) => server.dispatch({ method: name, params: [], user: 'u', wallet: undefined });
  assert.deepEqual(call('now'), { result: 'sync' });
  assert.deepEqual(call('nosuch'), { error: { code: -32601, message: 'Method not found' } });
  assert.deepEqual(server.activeCommands(), []);
  const pending = call('later');
  assert.ok(pending instanceof Promise);
  assert.deepEqual(server.activeCommands().map((c) => c.method), ['later'], 'an async call is running until it settles');
  release('done');
  assert.deepEqual(await pending, { result: 'done' });
  assert.deepEqual(server.activeCommands(), []);
  assert.deepEqual(await call('fails'), { error: { code: -8, message: 'late' } });
  assert.deepEqual(server.activeCommands(), []);
});

test('synopses as in Core\'s help listing', () => {
  assert.equal(synopsis(method('getblock', getblock)), 'getblock "blockhash" ( verbosity )');
  assert.equal(synopsis(method('getblockhash', [{ name: 'height', type: 'num', description: '' }])), 'getblockhash height');
  assert.equal(
    synopsis(
      method('prioritisetransaction', [
        { name: 'txid', type: 'str', description: '' },
        { name: 'dummy', type: 'num', optional: true, description: '' },
        { name: 'fee_delta', type: 'num', description: '' },
      ]),
    ),
    'prioritisetransaction "txid" ( dummy ) fee_delta',
  );
  assert.equal(
    synopsis(
      method('gettxoutproof', [
        { name: 'txids', type: 'arr', description: '', inner: [{ name: 'txid', type: 'str', optional: true, description: '' }] },
        { name: 'blockhash', type: 'hex', optional: true, description: '' },
      ]),
    ),
    'gettxoutproof ["txid",...] ( "blockhash" )',
  );
  assert.equal(
    synopsis(
      method('gettxspendingprevout', [
        {
          name: 'outputs',
          type: 'arr',
          description: '',
          inner: [{ name: '', type: 'obj', description: '', inner: [{ name: 'txid', type: 'hex', description: '' }, { name: 'vout', type: 'num', description: '' }] }],
        },
      ]),
    ),
    'gettxspendingprevout [{"txid":"hex","vout":n},...]',
  );
  assert.equal(synopsis(method('stop', [{ name: 'wait', type: 'num', optional: true, hidden: true, description: '' }])), 'stop');
});

test('full help text matches Core\'s getblockcount help byte for byte', () => {
  const getblockcount = method('getblockcount', [], {
    description: 'Returns the height of the most-work fully-validated chain.\nThe genesis block has height 0.',
    results: [{ type: 'num', description: 'The current block count' }],
    examples: helpExampleCli('getblockcount', '') + helpExampleRpc('getblockcount', ''),
  });
  assert.equal(
    fullHelp(getblockcount),
    "getblockcount\n\nReturns the height of the most-work fully-validated chain.\nThe genesis block has height 0.\n\nResult:\nn    (numeric) The current block count\n\nExamples:\n> bitcoin-cli getblockcount \n> curl --user myusername --data-binary '{\"jsonrpc\": \"2.0\", \"id\": \"curltest\", \"method\": \"getblockcount\", \"params\": []}' -H 'content-type: application/json' http://127.0.0.1:8332/\n",
  );
  const withArgs = fullHelp(method('getblock', getblock, { results: [{ type: 'str_hex', cond: 'for verbosity = 0', description: 'A string that is serialized, hex-encoded data for block \'hash\'' }] }));
  assert.equal(
    withArgs,
    'getblock "blockhash" ( verbosity )\n\nd\n\nArguments:\n1. blockhash    (string, required) The block hash\n2. verbosity    (numeric, optional, default=1) 0 for hex-encoded data, ...\n\nResult (for verbosity = 0):\n"hex"    (string) A string that is serialized, hex-encoded data for block \'hash\'\n',
  );
});

test('help listing: categories sorted, hidden left out, blank line between groups, no trailing newline', () => {
  const registry = new RpcRegistry();
  registry.register(
    method('getblockcount', []),
    { ...method('uptime', []), category: 'control' },
    { ...method('echo', []), category: 'hidden' },
    method('getbestblockhash', []),
  );
  assert.equal(registry.help(''), '== Blockchain ==\ngetbestblockhash\ngetblockcount\n\n== Control ==\nuptime');
  assert.equal(registry.help('nosuch'), 'help: unknown command: nosuch');
  // `help <cmd>` is the full text, trailing newline included, hidden methods too.
  assert.equal(registry.help('echo'), fullHelp({ ...method('echo', []), category: 'hidden' }));
});
