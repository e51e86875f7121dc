import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  ALWAYS_ACTIVE,
  ChainParamsError,
  DEFAULT_SIGNET_CHALLENGE,
  NEVER_ACTIVE,
  NO_TIMEOUT,
  parseSignetChallenge,
  parseTestActivationHeight,
  parseVbParams,
  readChainArgs,
  selectParams,
  signetMessageStart,
  tryParseHex,
  type ChainName,
} from '../../src/consensus/index.js';
import { blockMerkleRoot, bytesEqual, fromHex, serializeBlock, toHex } from '../../src/primitives/index.js';
import { readVectorText } from '../support/vectors.js';

// chainparams.md §1 and §2.
const EXPECTED: Record<ChainName, { hash: string; magic: string; port: number; rpc: number; dir: string; hrp: string; size: number }> = {
  main: { hash: '000000000019d6689c085ae165831e934ff763ae46a2a6c172b3f1b60a8ce26f', magic: 'f9beb4d9', port: 8333, rpc: 8332, dir: '', hrp: 'bc', size: 285 },
  test: { hash: '000000000933ea01ad0ee984209779baaec3ced90fa3f408719526f8d77f4943', magic: '0b110907', port: 18333, rpc: 18332, dir: 'testnet3', hrp: 'tb', size: 285 },
  testnet4: { hash: '00000000da84f2bafbbc53dee25a72ae507ff4914b867c565be350b0da8bf043', magic: '1c163f28', port: 48333, rpc: 48332, dir: 'testnet4', hrp: 'tb', size: 261 },
  signet: { hash: '00000008819873e925422c1ff0f99f7cc9bbb232af63a077a480a3633bee1ef6', magic: '0a03cf40', port: 38333, rpc: 38332, dir: 'signet', hrp: 'tb', size: 285 },
  regtest: { hash: '0f9188f13cb7b2c71f2a335e3a4fc328bf5beb436012afca590b1a11466e2206', magic: 'fabfb5da', port: 18444, rpc: 18443, dir: 'regtest', hrp: 'bcrt', size: 285 },
};

test('every network: genesis hash, magic, ports, data directory, HRP', () => {
  for (const [name, want] of Object.entries(EXPECTED) as [ChainName, (typeof EXPECTED)[ChainName]][]) {
    const params = selectParams(name);
    assert.equal(params.name, name);
    assert.equal(params.genesisHashHex, want.hash, name);
    assert.equal(params.genesis.header.hashHex, want.hash, name);
    assert.equal(toHex(params.messageStart), want.magic, name);
    assert.equal(params.defaultPort, want.port, name);
    assert.equal(params.rpcPort, want.rpc, name);
    assert.equal(params.dataSubdir, want.dir, name);
    assert.equal(params.bech32Hrp, want.hrp, name);
    assert.equal(serializeBlock(params.genesis).length, want.size, name);
    assert.ok(bytesEqual(blockMerkleRoot(params.genesis).root, params.genesis.header.merkleRoot), name);
    assert.equal(params.isTestChain, name !== 'main');
    assert.equal(params.isMockableChain, name === 'regtest');
    assert.equal(params.defaultConsistencyChecks, name === 'regtest');
    assert.equal(params.maxTipAge, 86400);
  }
});

test('mainnet genesis serializes to the block of the vectors file and of chainparams.md', () => {
  const line0 = readVectorText('mainnet-blocks-0-255.hex').split('\n')[0]!.trim();
  assert.equal(toHex(serializeBlock(selectParams('main').genesis)), line0);
  const testnet4 =
    '0100000000000000000000000000000000000000000000000000000000000000000000004e7b2b9128fe0291db0693af2ae418b767e657cd407e80cb1434221eaea7a07a046f3566ffff001dbb0c78170101000000010000000000000000000000000000000000000000000000000000000000000000ffffffff5504ffff001d01044c4c30332f4d61792f323032342030303030303030303030303030303030303030303165626435386332343439373062336161396437383362623030313031316662653865613865393865303065ffffffff0100f2052a010000002321000000000000000000000000000000000000000000000000000000000000000000ac00000000';
  assert.equal(toHex(serializeBlock(selectParams('testnet4').genesis)), testnet4);
});

test('proof-of-work and deployment constants match chainparams.md §3 and §4', () => {
  const main = selectParams('main');
  assert.equal(main.powLimitBits, 0x1d00ffff);
  assert.equal(main.bip34Height, 227931);
  assert.equal(main.bip34Hash, '000000000000024b89b42a942fe0d9fea3bb44ab7bd1b19115dd6a759c0808b8');
  assert.deepEqual([main.bip66Height, main.bip65Height, main.csvHeight, main.segwitHeight], [363725, 388381, 419328, 481824]);
  assert.deepEqual(main.deployments.taproot, { bit: 2, startTime: 1619222400n, timeout: 1628640000n, minActivationHeight: 709632, period: 2016, threshold: 1815 });
  assert.equal(main.deployments.testdummy.startTime, NEVER_ACTIVE);
  assert.equal(main.bip16ExceptionHash, '00000000000002dc756eebf4f49723ed8d30cc28a5f108eb94b1ba88ac4f9c22');
  assert.equal(main.scriptFlagExceptions.size, 2);
  assert.equal(main.defaultAssumeValid, '00000000000000000000ccebd6d74d9194d8dcdc1d177c478e094bfad51ba5ac');
  assert.equal(main.pruneAfterHeight, 100000);

  const test3 = selectParams('test');
  assert.deepEqual([test3.bip34Height, test3.bip66Height, test3.bip65Height, test3.csvHeight, test3.segwitHeight], [21111, 330776, 581885, 770112, 834624]);
  assert.equal(test3.bip16ExceptionHash, '00000000dd30457c001f4095d208cc1296b0eed002427aa599874af7a432b105');
  assert.equal(test3.deployments.taproot.threshold, 1512);
  assert.ok(test3.allowMinDifficultyBlocks && !test3.enforceBip94);

  const t4 = selectParams('testnet4');
  assert.ok(t4.enforceBip94 && t4.allowMinDifficultyBlocks);
  assert.equal(t4.deployments.taproot.startTime, ALWAYS_ACTIVE);

  const signet = selectParams('signet');
  assert.equal(signet.powLimit, BigInt('0x00000377ae000000000000000000000000000000000000000000000000000000'));
  assert.ok(signet.signetBlocks && !signet.allowMinDifficultyBlocks);
  assert.deepEqual(signet.signetChallenge, DEFAULT_SIGNET_CHALLENGE);

  const regtest = selectParams('regtest');
  assert.equal(regtest.subsidyHalvingInterval, 150);
  assert.equal(regtest.targetTimespan, 86400);
  assert.equal(regtest.difficultyAdjustmentInterval, 144);
  assert.ok(regtest.noRetargeting && regtest.allowMinDifficultyBlocks && !regtest.enforceBip94);
  assert.equal(regtest.segwitHeight, 0);
  assert.deepEqual(regtest.deployments.testdummy, { bit: 28, startTime: 0n, timeout: NO_TIMEOUT, minActivationHeight: 0, period: 144, threshold: 108 });
  assert.equal(regtest.minimumChainWork, 0n);
});

test('signet magic is derived from the challenge; a custom signet drops the public release data', () => {
  assert.equal(toHex(signetMessageStart(DEFAULT_SIGNET_CHALLENGE)), '0a03cf40');
  const custom = selectParams('signet', { signetChallenge: Uint8Array.of(0x51) });
  assert.notEqual(toHex(custom.messageStart), '0a03cf40');
  assert.deepEqual(custom.messageStart, signetMessageStart(Uint8Array.of(0x51)));
  assert.equal(custom.defaultAssumeValid, '0'.repeat(64));
  assert.equal(custom.minimumChainWork, 0n);
  assert.equal(custom.genesisHashHex, EXPECTED.signet.hash);
  assert.equal(custom.dataSubdir, 'signet');
});

test('regtest options: activation heights, version bits, bip94, fastprune; ignored on other chains as in Core', () => {
  const params = selectParams('regtest', {
    testActivationHeights: { segwit: 500, bip34: 10, dersig: 11, cltv: 12, csv: 13 },
    vbparams: { testdummy: { start: 100, timeout: 200n, minActivationHeight: 300 } },
    enforceBip94: true,
    fastprune: true,
  });
  assert.deepEqual([params.segwitHeight, params.bip34Height, params.bip66Height, params.bip65Height, params.csvHeight], [500, 10, 11, 12, 13]);
  assert.deepEqual(params.deployments.testdummy, { bit: 28, startTime: 100n, timeout: 200n, minActivationHeight: 300, period: 144, threshold: 108 });
  assert.ok(params.enforceBip94);
  assert.equal(params.pruneAfterHeight, 100);
  const main = selectParams('main', { testActivationHeights: { segwit: 1 }, enforceBip94: true });
  assert.equal(main.segwitHeight, 481824);
  assert.equal(main.enforceBip94, false);
});

function throwsCore(fn: () => unknown, message: string): void {
  assert.throws(fn, (e: unknown) => e instanceof ChainParamsError && e.message === message);
}

test('invalid chain options fail with Core messages', () => {
  throwsCore(() => selectParams('regtest', { testActivationHeights: { segwit: -1 } }), 'Invalid height value (segwit@-1) for -testactivationheight=name@height.');
  throwsCore(() => selectParams('regtest', { vbparams: { nosuch: { start: 0, timeout: 1 } } }), 'Invalid deployment (nosuch)');
  throwsCore(() => parseTestActivationHeight('segwit'), 'Invalid format (segwit) for -testactivationheight=name@height.');
  throwsCore(() => parseTestActivationHeight('segwit@x'), 'Invalid height value (segwit@x) for -testactivationheight=name@height.');
  throwsCore(() => parseTestActivationHeight('segwit@2147483647'), 'Invalid height value (segwit@2147483647) for -testactivationheight=name@height.');
  throwsCore(() => parseTestActivationHeight('foo@-1'), 'Invalid height value (foo@-1) for -testactivationheight=name@height.');
  throwsCore(() => parseTestActivationHeight('foo@5'), 'Invalid name (foo@5) for -testactivationheight=name@height.');
  assert.deepEqual(parseTestActivationHeight('dersig@0'), ['dersig', 0]);
  throwsCore(() => parseVbParams('testdummy:1'), 'Version bits parameters malformed, expecting deployment:start:end[:min_activation_height]');
  throwsCore(() => parseVbParams('testdummy:+1:2'), 'Invalid nStartTime (+1)');
  throwsCore(() => parseVbParams('testdummy:1:9223372036854775808'), 'Invalid nTimeout (9223372036854775808)');
  throwsCore(() => parseVbParams('testdummy:1:2:z'), 'Invalid min_activation_height (z)');
  throwsCore(() => parseVbParams('foo:1:2'), 'Invalid deployment (foo)');
  assert.deepEqual(parseVbParams('taproot:-1:9223372036854775807'), ['taproot', { start: -1n, timeout: NO_TIMEOUT, minActivationHeight: 0 }]);
  throwsCore(() => parseSignetChallenge(['51', '52']), '-signetchallenge cannot be multiple values.');
  throwsCore(() => parseSignetChallenge(['abc']), "-signetchallenge must be hex, not 'abc'.");
  assert.deepEqual(tryParseHex('51 52'), Uint8Array.of(0x51, 0x52));
  assert.equal(tryParseHex('5 1'), undefined);
});

test('readChainArgs reads only the options of the selected chain', () => {
  const options = readChainArgs('regtest', { testactivationheight: ['csv@5'], vbparams: ['testdummy:0:10:20'], test: ['bip94'], fastprune: true });
  assert.deepEqual(options.testActivationHeights, { csv: 5 });
  assert.deepEqual(options.vbparams, { testdummy: { start: 0n, timeout: 10n, minActivationHeight: 20 } });
  assert.equal(options.enforceBip94, true);
  assert.deepEqual(readChainArgs('main', { vbparams: ['garbage'] }), {});
  assert.deepEqual(readChainArgs('signet', { signetchallenge: ['51'] }).signetChallenge, fromHex('51'));
});
