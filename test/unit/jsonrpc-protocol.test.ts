/**
 * The front-end's JSON-RPC body handling with a stand-in for the coordinator, and the
 * IPC frames that carry calls: every exchange of jsonrpc.md's appendix that does not
 * need a chain.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Whitelist, handleJsonRpc, type CallOutcome } from '../../src/http/index.js';
import { FrameDecoder, FrameError, MAX_FRAME_BYTES, encodeFrame } from '../../src/ipc/index.js';
import { RawJsonNumber, writeJson, type RpcParams } from '../../src/rpc/index.js';

const calls: { method: string; params: RpcParams }[] = [];
async function run(body: string, whitelist = new Whitelist({ whitelists: [], whitelistDefault: false }), user = 'u') {
  const reply = await handleJsonRpc(Buffer.from(body), {
    user,
    whitelist,
    log: () => undefined,
    execute: async (method, params): Promise<CallOutcome> => {
      calls.push({ method, params });
      if (method === 'getblockcount') return { result: '0' };
      return { error: { code: -32601, message: 'Method not found' } };
    },
  });
  return { status: reply.status, body: typeof reply.body === 'string' ? reply.body : '' };
}

test('a large result (written as pieces into a reply buffer) has the same envelope bytes as a small one', async () => {
  // Non-ASCII text in the result and the id, so the pieces' UTF-8 lengths matter.
  const result = `"${'ab'.repeat(40_000)}é€😀"`;
  const ctx = { user: 'u', whitelist: new Whitelist({ whitelists: [], whitelistDefault: false }), log: () => undefined, execute: (): CallOutcome => ({ result }) };
  for (const [request, expected] of [
    ['{"method":"getblock","id":1}', `{"result":${result},"error":null,"id":1}\n`],
    ['{"method":"getblock","id":"ü\\u0000"}', `{"result":${result},"error":null,"id":"ü\\u0000"}\n`],
    ['{"method":"getblock"}', `{"result":${result},"error":null}\n`],
    ['{"jsonrpc":"2.0","method":"getblock","id":1.50}', `{"jsonrpc":"2.0","result":${result},"id":1.50}\n`],
  ] as const) {
    const reply = await handleJsonRpc(Buffer.from(request), ctx);
    assert.equal(reply.status, 200);
    assert.ok(reply.body instanceof Uint8Array);
    assert.equal(Buffer.from(reply.body).toString('utf8'), expected, request);
    reply.release?.();
  }
});

test('single requests: versions, ids, statuses', async () => {
  assert.deepEqual(await run('{"method":"getblockcount","id":1}'), { status: 200, body: '{"result":0,"error":null,"id":1}\n' });
  assert.deepEqual(await run('{"method":"getblockcount"}'), { status: 200, body: '{"result":0,"error":null}\n' });
  assert.deepEqual(await run('{"jsonrpc":"2.0","method":"getblockcount","id":"a"}'), { status: 200, body: '{"jsonrpc":"2.0","result":0,"id":"a"}\n' });
  assert.deepEqual(await run('{"jsonrpc":"1.0","method":"getblockcount","id":1}'), { status: 200, body: '{"result":0,"error":null,"id":1}\n' });
  assert.deepEqual(await run('{"jsonrpc":"2.0","method":"getblockcount"}'), { status: 204, body: '' });
  assert.deepEqual(await run('{"jsonrpc":"3.0","method":"getblockcount","id":1}'), {
    status: 400,
    body: '{"result":null,"error":{"code":-32600,"message":"JSON-RPC version not supported"},"id":1}\n',
  });
  assert.deepEqual(await run('{"jsonrpc":null,"method":"getblockcount","id":1}'), { status: 200, body: '{"result":0,"error":null,"id":1}\n' });
  assert.deepEqual(await run('{"method":"nosuch","id":[1,{"a":null}]}'), {
    status: 404,
    body: '{"result":null,"error":{"code":-32601,"message":"Method not found"},"id":[1,{"a":null}]}\n',
  });
  assert.deepEqual(await run(' {"method":"getblockcount","id":1} \n'), { status: 200, body: '{"result":0,"error":null,"id":1}\n' });
  // Number ids come back as they were written, as UniValue keeps number text.
  for (const id of ['-0', '9007199254740993', '123456789012345678901234567890', '1.50', '1e2', '-7', '0']) {
    assert.deepEqual(await run(`{"method":"getblockcount","id":${id}}`), { status: 200, body: `{"result":0,"error":null,"id":${id}}\n` }, id);
  }
  assert.equal((await run('{"method":"getblockcount","id":1} x')).status, 500);
  assert.equal((await run('\xff')).status, 500);
});

test('params reach the coordinator positional, or named with repeats kept', async () => {
  calls.length = 0;
  await run('{"method":"getblockcount","params":{"a":1,"a":2,"b":[3]},"id":1}');
  await run('{"method":"getblockcount","params":[1,"x"],"id":1}');
  await run('{"method":"getblockcount","id":1}');
  assert.deepEqual(
    calls.map((c) => c.params),
    [{ named: [['a', 1], ['a', 2], ['b', [3]]] }, [1, 'x'], []],
  );
});

test('batches', async () => {
  assert.deepEqual(await run('[{"jsonrpc":"2.0","method":"getblockcount"},7,{"method":"getblockcount","id":2}]'), {
    status: 200,
    // The non-object keeps the previous element's state: a 2.0 request without id, so its error is a notification too.
    body: '[{"result":0,"error":null,"id":2}]\n',
  });
  assert.deepEqual(await run('[{"jsonrpc":"2.0","method":"getblockcount"}]'), { status: 204, body: '' });
  assert.deepEqual(await run('[]'), { status: 200, body: '[]\n' });
  assert.deepEqual(await run('[{"method":"getblockcount","params":"x","id":4}]'), {
    status: 200,
    body: '[{"result":null,"error":{"code":-32600,"message":"Params must be an array or object"},"id":4}]\n',
  });
});

test('whitelists: default-deny, per-method 403, batch pre-check errors', async () => {
  const wl = new Whitelist({ whitelists: [{ user: 'alice', methods: ['getblockcount'] }], whitelistDefault: true });
  assert.equal((await run('{"method":"getblockcount","id":1}', wl, 'bob')).status, 403);
  assert.equal((await run('{"method":"getblockcount","id":1}', wl, 'alice')).status, 200);
  assert.equal((await run('{"method":"help","id":1}', wl, 'alice')).status, 403);
  assert.equal((await run('{"id":1}', wl, 'alice')).status, 400, 'request errors come before the whitelist check');
  assert.equal((await run('[{"method":"getblockcount","id":1},{"method":"help","id":2}]', wl, 'alice')).status, 403);
  assert.deepEqual(await run('[{"method":5}]', wl, 'alice'), {
    status: 500,
    body: '{"result":null,"error":{"code":-32700,"message":"JSON value of type number is not of expected type string"},"id":null}\n',
  });
});

test('results are written as Core writes JSON: exact amounts, DEL escaped, key order kept', () => {
  assert.equal(writeJson({ b: new RawJsonNumber('50.00000000'), a: [1, 'x\x7fy', null, true], u: undefined }), '{"b":50.00000000,"a":[1,"x\\u007fy",null,true]}');
  assert.equal(writeJson(2n ** 64n), '18446744073709551616');
  assert.throws(() => new RawJsonNumber('1.'), /not a JSON number/);
});

test('IPC frames: length-prefixed msgpack, split and joined anywhere, oversized refused', () => {
  const messages = [{ t: 'call', id: 1, method: 'echo', params: { named: [['a', 1], ['a', 2]] }, wallet: null, user: '__cookie__' }, { t: 'reply', id: 1, result: '[1]' }, { t: 'shutdown' }];
  const bytes = Buffer.concat(messages.map(encodeFrame));
  assert.equal(bytes.readUInt32BE(0) + 4, encodeFrame(messages[0]).length);
  for (const step of [1, 3, 7, bytes.length]) {
    const dec = new FrameDecoder();
    const out: unknown[] = [];
    for (let i = 0; i < bytes.length; i += step) out.push(...dec.push(bytes.subarray(i, i + step)));
    assert.deepEqual(out, messages, `chunks of ${step}`);
  }
  const huge = Buffer.alloc(4);
  huge.writeUInt32BE(MAX_FRAME_BYTES + 1);
  assert.throws(() => new FrameDecoder().push(huge), FrameError);
});
