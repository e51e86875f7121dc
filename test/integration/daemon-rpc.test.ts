/**
 * JSON-RPC over real HTTP against one running regtest daemon: authentication, methods
 * and paths, Core's 1.1 / 2.0 envelopes and statuses, batches and notifications,
 * named / positional / mixed parameters, and the Control methods.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Daemon, httpRequest } from './daemon-harness.js';

describe('tsbtcd JSON-RPC over HTTP', () => {
  let d: Daemon;
  before(async () => {
    d = await Daemon.start();
  });
  after(async () => {
    await d?.cleanup();
  });

  test('echo, uptime and help answer with Core envelopes and nothing reaches stderr', async () => {
    const echo = await d.post('{"method":"echo","params":[1,"a",null,{"x":[true]}],"id":7}');
    assert.equal(echo.status, 200);
    assert.equal(echo.headers['content-type'], 'application/json');
    assert.equal(echo.body, '{"result":[1,"a",null,{"x":[true]}],"error":null,"id":7}\n');
    const up = await d.rpc('uptime');
    assert.equal(typeof up.json.result, 'number');
    const help = await d.rpc('help');
    // Core's listing: groups in alphabetical order, hidden methods left out; the Control group exactly.
    const listing: string = help.json.result;
    assert.ok(
      listing.includes('== Control ==\ngetmemoryinfo ( "mode" )\ngetrpcinfo\nhelp ( "command" )\nlogging ( ["include_category",...] ["exclude_category",...] )\nstop\nuptime'),
      listing,
    );
    const groups = [...listing.matchAll(/^== (\w+) ==$/gm)].map((m) => m[1]!);
    assert.deepEqual(groups, [...groups].sort());
    assert.ok(listing.includes('getblockcount\n'));
    assert.ok(!listing.includes('generatetoaddress'), 'hidden methods are not listed');
    assert.equal((await d.rpc('help', ['foo'])).json.result, 'help: unknown command: foo');
    assert.match((await d.rpc('help', ['uptime'])).json.result, /^uptime\n\nReturns the total uptime of the server\.\n\nResult:\nn    \(numeric\) The number of seconds that the server has been running\n\nExamples:\n> bitcoin-cli uptime \n/);
    assert.equal(d.stderr, '');
  });

  test('no credentials: 401 at once with the Basic realm; wrong ones: 401 after the 250 ms delay', async () => {
    const none = await httpRequest(d.port, { body: '{"method":"uptime"}' });
    assert.equal(none.status, 401);
    assert.equal(none.headers['www-authenticate'], 'Basic realm="jsonrpc"');
    assert.equal(none.body, '');
    assert.ok(none.ms < 200, `no-credential 401 took ${none.ms} ms`);
    const wrong = await d.post('{"method":"uptime"}', { auth: '__cookie__:wrong' });
    assert.equal(wrong.status, 401);
    assert.equal(wrong.headers['www-authenticate'], 'Basic realm="jsonrpc"');
    assert.ok(wrong.ms >= 240, `failed login answered after ${wrong.ms} ms`);
    const bearer = await httpRequest(d.port, { body: '{}', headers: { Authorization: 'Bearer x' } });
    assert.equal(bearer.status, 401);
    assert.match(d.debugLog(), /\[warning\] ThreadRPCServer incorrect password attempt from 127\.0\.0\.1/);
  });

  test('methods and paths: GET 405 with Core text (before auth), DELETE 405, unknown path 404, /rest/ 404 without -rest, OPTIONS 501', async () => {
    const get = await httpRequest(d.port, { method: 'GET' });
    assert.equal(get.status, 405);
    assert.equal(get.body, 'JSONRPC server handles only POST requests');
    assert.equal(get.headers['content-type'], 'text/html; charset=ISO-8859-1');
    assert.equal((await httpRequest(d.port, { method: 'DELETE', auth: d.cookie() })).status, 405);
    for (const p of ['/foo', '/?x=1', '//', '/rest/chaininfo.json']) {
      const r = await d.post('{"method":"uptime","id":1}', { path: p });
      assert.equal(r.status, 404, p);
      assert.equal(r.body, '', p);
    }
    const options = await httpRequest(d.port, { method: 'OPTIONS' });
    assert.equal(options.status, 501);
    assert.equal(options.body, '<HTML><HEAD>\n<TITLE>501 Not Implemented</TITLE>\n</HEAD><BODY>\n<H1>Not Implemented</H1>\n</BODY></HTML>\n');
    const wallet = await d.post('{"method":"uptime","id":1}', { path: '/wallet/w1' });
    assert.equal(wallet.status, 200, 'non-wallet methods ignore the wallet path');
  });

  test('parse and request-object errors: statuses and shapes as Core', async () => {
    const cases: [string, number, string][] = [
      ['', 500, '{"result":null,"error":{"code":-32700,"message":"Parse error"},"id":null}'],
      ['this is bad', 500, '{"result":null,"error":{"code":-32700,"message":"Parse error"},"id":null}'],
      ['5', 500, '{"result":null,"error":{"code":-32700,"message":"Top-level object parse error"},"id":null}'],
      ['{"id":1}', 400, '{"result":null,"error":{"code":-32600,"message":"Missing method"},"id":1}'],
      ['{"jsonrpc":"2.0","id":1}', 400, '{"jsonrpc":"2.0","error":{"code":-32600,"message":"Missing method"},"id":1}'],
      ['{"jsonrpc":"2.0","method":5,"id":1}', 400, '{"jsonrpc":"2.0","error":{"code":-32600,"message":"Method must be a string"},"id":1}'],
      ['{"jsonrpc":2,"method":"uptime","id":1}', 400, '{"result":null,"error":{"code":-32600,"message":"jsonrpc field must be a string"},"id":1}'],
      ['{"method":"uptime","params":"x","id":1}', 400, '{"result":null,"error":{"code":-32600,"message":"Params must be an array or object"},"id":1}'],
      ['{"method":"nosuch","id":1}', 404, '{"result":null,"error":{"code":-32601,"message":"Method not found"},"id":1}'],
      ['{"jsonrpc":"2.0","method":"nosuch","id":1}', 200, '{"jsonrpc":"2.0","error":{"code":-32601,"message":"Method not found"},"id":1}'],
      ['{"method":"help","params":[5],"id":1}', 500, '{"result":null,"error":{"code":-3,"message":"Wrong type passed:\\n{\\n    \\"Position 1 (command)\\": \\"JSON value of type number is not of expected type string\\"\\n}"},"id":1}'],
      ['{"method":"uptime","id":null}', 200, '{"result":R,"error":null,"id":null}'],
      ['{"method":"getrpcinfo"}', 200, 'NOID'],
    ];
    for (const [body, status, expected] of cases) {
      const r = await d.post(body);
      assert.equal(r.status, status, body);
      if (expected === 'NOID') assert.doesNotMatch(r.body, /"id"/, body);
      else if (expected.includes(':R,')) assert.match(r.body, /^\{"result":\d+,"error":null,"id":null\}\n$/, body);
      else assert.equal(r.body, `${expected}\n`, body);
    }
  });

  test('batches: order, mixed versions, the reused id of a non-object element, notifications, empty batch', async () => {
    const r = await d.post('[{"method":"echo","params":[1],"id":1},5,{"jsonrpc":"2.0","method":"nosuch","id":3},{"jsonrpc":"2.0","method":"uptime"}]');
    assert.equal(r.status, 200);
    assert.equal(
      r.body,
      '[{"result":[1],"error":null,"id":1},{"result":null,"error":{"code":-32600,"message":"Invalid Request object"},"id":1},{"jsonrpc":"2.0","error":{"code":-32601,"message":"Method not found"},"id":3}]\n',
    );
    const first = await d.post('[5]');
    assert.equal(first.body, '[{"result":null,"error":{"code":-32600,"message":"Invalid Request object"},"id":null}]\n');
    const allNotifications = await d.post('[{"jsonrpc":"2.0","method":"uptime"},{"jsonrpc":"2.0","method":"nosuch"}]');
    assert.equal(allNotifications.status, 204);
    assert.equal(allNotifications.body, '');
    assert.equal(allNotifications.headers['content-length'], undefined);
    const empty = await d.post('[]');
    assert.equal(empty.status, 200);
    assert.equal(empty.body, '[]\n');
    const single = await d.post('{"jsonrpc":"2.0","method":"nosuch"}');
    assert.equal(single.status, 204, 'a 2.0 notification gets 204 even when it fails');
  });

  test('a body that arrives in many chunks is read whole; one in a single chunk is answered in place', async () => {
    // About 720 KB, more than uSockets reads at once (512 KiB): several data callbacks.
    const padding = 'x'.repeat(1000);
    const calls = Array.from({ length: 700 }, (_, i) => `{"method":"echo","params":["${padding}",${i}],"id":${i}}`);
    const r = await d.post(`[${calls.join(',')}]`);
    assert.equal(r.status, 200);
    const replies = JSON.parse(r.body) as { result: [string, number]; id: number }[];
    assert.equal(replies.length, 700);
    replies.forEach((reply, i) => {
      assert.equal(reply.id, i);
      assert.deepEqual(reply.result, [padding, i]);
    });
    // And one in a single chunk, answered in place, right after.
    assert.equal((await d.post('{"method":"echo","params":["one"],"id":"s"}')).body, '{"result":["one"],"error":null,"id":"s"}\n');
  });

  test('named, positional and mixed parameters map as Core maps them', async () => {
    const call = async (params: unknown) => JSON.parse((await d.post(`{"method":"echo","params":${JSON.stringify(params)},"id":1}`)).body);
    assert.deepEqual((await call({ arg1: 1 })).result, [null, 1]);
    assert.deepEqual((await call({ arg9: null })).result, new Array(10).fill(null));
    assert.deepEqual((await call({ args: [5, 6], arg3: 3 })).result, [5, 6, null, 3]);
    assert.deepEqual((await call({ args: 'x', arg0: 1 })).result, [1], 'a non-array args is dropped');
    assert.deepEqual((await call([1, 2])).result, [1, 2]);
    assert.deepEqual((await call({ args: [1], arg0: 2 })).error, {
      code: -8,
      message: 'Parameter arg0 specified twice both as positional and named argument',
    });
    assert.deepEqual((await call({ foo: 1 })).error, { code: -8, message: 'Unknown named parameter foo' });
    const dup = JSON.parse((await d.post('{"method":"echo","params":{"arg0":1,"arg0":2},"id":1}')).body);
    assert.deepEqual(dup.error, { code: -8, message: 'Parameter arg0 specified multiple times' });
    const tooMany = JSON.parse((await d.post('{"method":"uptime","params":[1],"id":1}')).body);
    assert.equal(tooMany.error.code, -1);
    assert.match(tooMany.error.message, /^uptime\n\nReturns the total uptime of the server\./);
  });

  test('getrpcinfo lists itself and the debug.log path; logging switches categories', async () => {
    const info = (await d.rpc('getrpcinfo')).json.result;
    assert.equal(info.logpath, `${d.netdir}/debug.log`);
    assert.equal(info.active_commands.length, 1);
    assert.equal(info.active_commands[0].method, 'getrpcinfo');
    assert.equal(typeof info.active_commands[0].duration, 'number');
    const before = (await d.rpc('logging')).json.result;
    assert.equal(before.http, false);
    assert.deepEqual(Object.keys(before), [...Object.keys(before)].sort());
    const on = (await d.rpc('logging', [['http', 'rpc']])).json.result;
    assert.equal(on.http, true);
    assert.equal(on.rpc, true);
    await d.rpc('uptime');
    const off = (await d.rpc('logging', [[], ['all']])).json.result;
    assert.ok(Object.values(off).every((v) => v === false));
    assert.match(d.debugLog(), /\[http\] Received a POST request for \/ from 127\.0\.0\.1/);
    const bad = (await d.rpc('logging', [['nosuch']])).json;
    assert.deepEqual(bad.error, { code: -8, message: 'unknown logging category nosuch' });
  });

  test("getrpcinfo lists a front-end's long poll while it runs, in start order, and not after", async () => {
    const waiting = d.rpc('waitfornewblock', [1500]);
    let listed: { method: string; duration: number }[] = [];
    for (let i = 0; i < 50 && listed.length < 2; i++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      listed = (await d.rpc('getrpcinfo')).json.result.active_commands;
    }
    assert.deepEqual(
      listed.map((c) => c.method),
      ['waitfornewblock', 'getrpcinfo'],
    );
    assert.ok(listed[0]!.duration > listed[1]!.duration, 'the long poll has been running longer');
    assert.equal((await waiting).json.error, null);
    const after = (await d.rpc('getrpcinfo')).json.result.active_commands;
    assert.deepEqual(
      after.map((c: { method: string }) => c.method),
      ['getrpcinfo'],
    );
  });
});
