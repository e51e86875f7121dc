/**
 * tsbtcd-cli's argument conversion (Core's rpc/client.cpp): the vRPCConvertParams table,
 * positional conversion, -named conversion with `args` and the '=' heuristics, and the
 * UniValue reading and writing the client prints with.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CliError, paramAtPosition, paramNamed, readJson, RPC_CONVERT_PARAMS, rpcConvertNamedValues, rpcConvertValues, writeJson } from '../../src/cli/index.js';

const compact = (v: Parameters<typeof writeJson>[0]) => writeJson(v);
const positional = (method: string, ...words: string[]) => compact(rpcConvertValues(method, words));
const named = (method: string, ...words: string[]) => compact(rpcConvertNamedValues(method, words));

test('the table is Core v31.0 vRPCConvertParams: 331 rows, first match wins, v30 rows removed and added', () => {
  assert.equal(RPC_CONVERT_PARAMS.length, 331);
  const formats = new Set(RPC_CONVERT_PARAMS.map((p) => p.format));
  assert.deepEqual([...formats].sort(), ['json', 'json-or-string', 'string']);
  // settxfee was removed in 31.0; gettxspendingprevout gained its options (txospenderindex).
  assert.equal(paramAtPosition('settxfee', 0), undefined);
  assert.deepEqual(
    RPC_CONVERT_PARAMS.filter((p) => p.method === 'gettxspendingprevout').map((p) => `${p.index}:${p.name}`),
    ['0:outputs', '1:options', '1:mempool_only', '1:return_spending_tx'],
  );
  // Several rows per position: the first is the one used.
  assert.equal(paramAtPosition('getblock', 1)?.name, 'verbosity');
  assert.equal(paramAtPosition('dumptxoutset', 2)?.name, 'options');
  assert.equal(paramNamed('dumptxoutset', 'rollback')?.format, 'json-or-string');
  assert.equal(paramNamed('getblock', 'verbose')?.index, 1);
  assert.equal(paramNamed('getblockstats', 'hash_or_height')?.format, 'json-or-string');
  assert.equal(paramNamed('createwallet', 'wallet_name')?.format, 'string');
  // Every (method, name) pair is listed once at most per position.
  const seen = new Set<string>();
  for (const p of RPC_CONVERT_PARAMS) {
    const key = `${p.method}/${p.index}/${p.name}`;
    assert.ok(!seen.has(key), key);
    seen.add(key);
  }
});

test('positional: JSON only where the table says, strings everywhere else', () => {
  assert.equal(positional('getblockhash', '0'), '[0]');
  assert.equal(positional('generatetoaddress', '2', 'bcrt1qaddr'), '[2,"bcrt1qaddr"]');
  assert.equal(positional('generatetoaddress', '2', 'bcrt1qaddr', '1000'), '[2,"bcrt1qaddr",1000]');
  assert.equal(positional('echo', '1', 'true', '[]'), '["1","true","[]"]');
  assert.equal(positional('getblock', 'ab', '2'), '["ab",2]');
  assert.equal(positional('getblockheader', 'ab', 'false'), '["ab",false]');
  assert.equal(positional('createrawtransaction', '[{"txid":"aa","vout":0}]', '{"bcrt1q":0.10000000}'), '[[{"txid":"aa","vout":0}],{"bcrt1q":0.10000000}]');
  assert.equal(positional('waitfornewblock', '1000', 'ab'), '[1000,"ab"]');
  assert.equal(positional('setmocktime', '1700000000'), '[1700000000]');
  assert.equal(positional('stop', 'true'), '[true]');
  assert.equal(positional('logging', '["net"]', '[]'), '[["net"],[]]');
  assert.equal(positional('getblockcount'), '[]');
  // A method that is not in the table: all strings (settxfee since 31.0).
  assert.equal(positional('settxfee', '0.0001'), '["0.0001"]');
  assert.equal(positional('nosuchmethod', '5', '{}'), '["5","{}"]');
  // Numbers keep their text: amounts are not re-formatted.
  assert.equal(positional('sendrawtransaction', 'ab', '0.10000000'), '["ab",0.10000000]');
  assert.equal(positional('echojson', '1e-8', '-0', '1E+2'), '[1e-8,-0,1E+2]');
});

test('positional: json-or-string falls back to the string, json fails with Core\'s message', () => {
  assert.equal(positional('getblockstats', '101'), '[101]');
  assert.equal(positional('getblockstats', '00ab'), '["00ab"]');
  assert.equal(positional('getblockstats', '"00ab"', '["height"]'), '["00ab",["height"]]');
  assert.equal(positional('gettxoutsetinfo', 'muhash', '0f9188f13cb7b2c71f2a335e3a4fc328bf5beb436012afca590b1a11466e2206'), '["muhash","0f9188f13cb7b2c71f2a335e3a4fc328bf5beb436012afca590b1a11466e2206"]');
  assert.equal(positional('gettxoutsetinfo', 'muhash', '12'), '["muhash",12]');
  assert.throws(() => rpcConvertValues('generatetoaddress', ['foo', 'addr']), new CliError('Error parsing JSON: foo'));
  assert.throws(() => rpcConvertValues('getblockhash', ['']), new CliError('Error parsing JSON: '));
  assert.throws(() => rpcConvertValues('getblockhash', ['01']), new CliError('Error parsing JSON: 01'));
  assert.throws(() => rpcConvertValues('getblock', ['ab', 'x']), new CliError('Error parsing JSON: x'));
  assert.throws(() => rpcConvertValues('createrawtransaction', ['[1,]']), new CliError('Error parsing JSON: [1,]'));
  // dumptxoutset's position 2 is its options object: a bare word is not JSON there.
  assert.throws(() => rpcConvertValues('dumptxoutset', ['f', 'latest', 'x']), new CliError('Error parsing JSON: x'));
});

test('-named: NAME=VALUE by the table, bare words into args, later names replace earlier ones', () => {
  assert.equal(named('getblockhash', 'height=0'), '{"height":0}');
  assert.equal(named('getblock', 'blockhash=ab', 'verbosity=2'), '{"blockhash":"ab","verbosity":2}');
  assert.equal(named('getblock', 'blockhash=ab', 'verbose=true'), '{"blockhash":"ab","verbose":true}');
  // interface_bitcoin_cli.py: echo 0 1 arg3=3 arg5=5
  assert.equal(named('echo', '0', '1', 'arg3=3', 'arg5=5'), '{"arg3":"3","arg5":"5","args":["0","1"]}');
  assert.equal(named('echo', 'arg0=0', 'arg1=1', 'arg2=2', 'arg1=3'), '{"arg0":"0","arg1":"3","arg2":"2"}');
  // An explicit args= next to bare words is sent twice, for the server to refuse.
  assert.equal(named('echo', 'args=[0,1,2,3]', '4', '5'), '{"args":"[0,1,2,3]","args":["4","5"]}');
  // Bare words are converted by their position.
  assert.equal(named('getblock', 'ab', 'verbosity=0'), '{"verbosity":0,"args":["ab"]}');
  assert.equal(named('generatetoaddress', '3', 'address=bcrt1q'), '{"address":"bcrt1q","args":[3]}');
  // A value may contain '=': only the first one splits.
  assert.equal(named('echo', 'arg0=a=b'), '{"arg0":"a=b"}');
  assert.throws(() => rpcConvertNamedValues('getblockhash', ['height=x']), new CliError('Error parsing JSON: x'));
});

test('-named: a word with "=" whose name is unknown is positional when the next slot takes it', () => {
  // interface_bitcoin_cli.py test_echojson_positional_equals
  assert.equal(named('echojson', '["key=value"]'), '{"args":[["key=value"]]}');
  assert.equal(named('echojson', '["key=value", "another=test"]'), '{"args":[["key=value","another=test"]]}');
  assert.equal(named('echojson', '["data=test"]', '42'), '{"args":[["data=test"],42]}');
  assert.equal(named('echojson', 'arg0=["data=test"]', 'arg1=42'), '{"arg0":["data=test"],"arg1":42}');
  // A STRING slot takes the whole word: createwallet "my=wallet".
  assert.equal(named('createwallet', 'my=wallet'), '{"args":["my=wallet"]}');
  assert.equal(named('createwallet', 'my=wallet', 'blank=true'), '{"blank":true,"args":["my=wallet"]}');
  // Otherwise it is a named argument the server will judge (echo has no table rows).
  assert.equal(named('echo', 'my=wallet'), '{"my":"wallet"}');
  // A JSON slot that does not parse leaves the word named.
  assert.equal(named('echojson', 'x=1'), '{"x":"1"}');
});

test('UniValue reading: strict JSON, any value at the top, numbers kept as text', () => {
  for (const bad of ['', ' ', '[1,]', '{"a":1,}', '01', '-', '1.', '.5', '+1', 'foo', '[1] x', '"a\nb"', '"\\ud800"', '"\\x"', '{"a"}', '[,1]', "'a'", 'NaN', 'nul', '1e', '--1', '"abc']) {
    assert.equal(readJson(bad), undefined, JSON.stringify(bad));
  }
  assert.equal(compact(readJson(' 5 ')!), '5');
  assert.equal(compact(readJson('-0.5e+3')!), '-0.5e+3');
  assert.equal(compact(readJson('0.00001000')!), '0.00001000');
  assert.equal(compact(readJson('123456789012345678901234567890')!), '123456789012345678901234567890');
  assert.equal(compact(readJson('"\\ud83d\\ude00 \\u00e9\\/"')!), '"😀 é/"');
  assert.equal(compact(readJson('{"a":1,"a":2}')!), '{"a":1,"a":2}');
  assert.equal(compact(readJson(' [ true , false , null , { } , [ ] ] ')!), '[true,false,null,{},[]]');
  const deep = (n: number) => '['.repeat(n) + ']'.repeat(n);
  assert.notEqual(readJson(deep(512)), undefined);
  assert.equal(readJson(deep(513)), undefined);
});

test('UniValue writing: write(2) layout and json_escape', () => {
  const v = readJson('{"a":[1,2.50,{}],"b":[],"c":4.656542373906925e-10,"d":null,"e":true,"f":{"g":"x"}}')!;
  assert.equal(
    writeJson(v, 2),
    '{\n  "a": [\n    1,\n    2.50,\n    {\n    }\n  ],\n  "b": [\n  ],\n  "c": 4.656542373906925e-10,\n  "d": null,\n  "e": true,\n  "f": {\n    "g": "x"\n  }\n}',
  );
  assert.equal(writeJson(readJson('[]')!, 2), '[\n]');
  assert.equal(writeJson(readJson('{}')!, 2), '{\n}');
  assert.equal(writeJson(readJson('"x"')!, 2), '"x"');
  assert.equal(compact(readJson('"a\\"b\\\\c\\n\\t\\u0001\\u007f\\b\\f\\r/é"')!), '"a\\"b\\\\c\\n\\t\\u0001\\u007f\\b\\f\\r/é"');
  assert.equal(compact(readJson('"\\u001F\\u000b"')!), '"\\u001f\\u000b"');
});
