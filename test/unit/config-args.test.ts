/**
 * Command-line and bitcoin.conf parsing with Core's rules: negation, double negatives,
 * forbidden forms, config-file syntax errors, and which source wins (command line last
 * value, config file first value, [chain] section over top level, network-only options
 * for non-main chains).
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { Args } from '../../src/node/args.js';
import { ConfigError, parseCommandLine, parseConfigText, parseIntLikeCore, interpretBool } from '../../src/node/args-parse.js';
import { InitError, loadConfig } from '../../src/node/config.js';
import { networkOnlyOptions } from '../../src/node/option-table.js';

function argsFrom(cmdline: string[], conf = ''): Args {
  const args = new Args();
  for (const o of parseCommandLine(cmdline)) args.settings.addCommandLine(o.name, o.value);
  for (const o of parseConfigText(conf).options) args.settings.addConfig(o.section, o.name, o.value);
  args.selectNetwork(args.chain());
  return args;
}

test('command line: -name=value, -name, -noname, --name, double negative, unknown and dotted names', () => {
  assert.deepEqual(parseCommandLine(['-rpcport=1', '-rest', '-nolisten', '--txindex=1', '-nodnsseed=0']), [
    { name: 'rpcport', value: '1' },
    { name: 'rest', value: '' },
    { name: 'listen', value: false },
    { name: 'txindex', value: '1' },
    { name: 'dnsseed', value: true },
  ]);
  assert.throws(() => parseCommandLine(['-foo']), new ConfigError('Invalid parameter -foo'));
  assert.throws(() => parseCommandLine(['-foo=1']), new ConfigError('Invalid parameter -foo=1'));
  assert.throws(() => parseCommandLine(['-regtest.rpcport=1']), new ConfigError('Invalid parameter -regtest.rpcport=1'));
  assert.throws(() => parseCommandLine(['getblockcount']), new ConfigError("Invalid command 'getblockcount'"));
  assert.throws(() => parseCommandLine(['-nodatadir']), new ConfigError('Negating of -datadir is meaningless and therefore forbidden'));
  assert.throws(() => parseCommandLine(['-proxy']), new ConfigError('Can not set -proxy with no value. Please specify value with -proxy=value.'));
  assert.throws(() => parseCommandLine(['-includeconf=x.conf']), new ConfigError('-includeconf cannot be used from commandline; -includeconf="x.conf"'));
  assert.deepEqual(parseCommandLine(['-noincludeconf']), [{ name: 'includeconf', value: false }]);
  // Every option the brief and daemon.md name is accepted.
  for (const name of ['par', 'dbcache', 'assumevalid', 'loadblock', 'stopatheight', 'testactivationheight', 'vbparams', 'signetchallenge',
    'rpcwhitelistdefault', 'rpcservertimeout', 'rpcthreads', 'rpcworkqueue', 'mocktime', 'blocksxor', 'rpcfrontends', 'prevoutfetchthreads',
    'unsafesqlitesync', 'v2transport', 'logthreadnames', 'loglevel=trace', 'nologratelimit', 'natpmp', 'maxuploadtarget']) {
    assert.doesNotThrow(() => parseCommandLine([`-${name}${name.includes('=') ? '' : '=1'}`]), name);
  }
});

test('Core integer and boolean readings', () => {
  assert.equal(parseIntLikeCore(' 12abc'), 12);
  assert.equal(parseIntLikeCore('+5'), 5);
  assert.equal(parseIntLikeCore('+-5'), 0);
  assert.equal(parseIntLikeCore('x'), 0);
  assert.equal(parseIntLikeCore('99999999999999999999'), Number(2n ** 63n - 1n));
  assert.equal(interpretBool(''), true);
  assert.equal(interpretBool('0'), false);
  assert.equal(interpretBool('true'), false, 'Core reads "true" as 0');
});

test('bitcoin.conf syntax: sections, comments, whitespace, and the errors', () => {
  const parsed = parseConfigText('# c\n regtest = 1 \n[regtest]\nrpcport=5\ntest.rpcport=6 # x\nnolisten=1\nbogus=2\n[weird]\n');
  assert.deepEqual(parsed.options, [
    { section: '', name: 'regtest', value: '1' },
    { section: 'regtest', name: 'rpcport', value: '5' },
    { section: 'regtest', name: 'listen', value: false },
  ]);
  // Inside [regtest], "test.rpcport" is the key "regtest.test.rpcport": not an option.
  assert.deepEqual(parsed.unknown, ['regtest.test.rpcport', 'regtest.bogus']);
  assert.deepEqual(
    parsed.sections.map((s) => [s.name, s.line]),
    [
      ['regtest', 3],
      ['regtest.test', 5],
      ['weird', 8],
    ],
  );
  assert.throws(() => parseConfigText('-x=1'), /parse error on line 1: -x=1, options in configuration file must be specified without leading -/);
  assert.throws(() => parseConfigText('\nnolisten'), /parse error on line 2: nolisten, if you intended to specify a negated option, use nolisten=1 instead/);
  assert.throws(() => parseConfigText('rpcpassword=a#b'), /parse error on line 1, using # in rpcpassword can be ambiguous and should be avoided/);
});

test('precedence: command line last value, config first value, section over top level, negation', () => {
  const a = argsFrom(['-regtest', '-rpcuser=a', '-rpcuser=b'], 'rpcuser=c\ndbcache=1\ndbcache=2\n[regtest]\ndbcache=3\n');
  assert.equal(a.getArg('rpcuser'), 'b');
  assert.equal(a.getArg('dbcache'), '3');
  const b = argsFrom([], 'dbcache=1\ndbcache=2\n');
  assert.equal(b.getArg('dbcache'), '1', 'the config file keeps its first value');
  const c = argsFrom(['-nodebug'], 'debug=net\n');
  assert.deepEqual(c.getArgs('debug'), []);
  const d = argsFrom(['-nodebug', '-debug=http'], 'debug=net\n');
  assert.deepEqual(d.getArgs('debug'), ['http', 'net'], "Core's zombie config values come back after a negation followed by values");
  const e = argsFrom(['-rest=0']);
  assert.equal(e.getBoolArg('rest', true), false);
  assert.equal(argsFrom(['-rest']).getBoolArg('rest', false), true);
});

test('network-only options of a non-main chain ignore the top level (unless negated there)', () => {
  const a = argsFrom([], 'regtest=1\nrpcport=1\nrpcuser=u\n');
  assert.equal(a.getArg('rpcport'), undefined);
  assert.equal(a.getArg('rpcuser'), 'u');
  assert.deepEqual(a.unsuitableSectionOnlyArgs(networkOnlyOptions()), ['-rpcport']);
  const b = argsFrom([], 'regtest=1\nrpcport=1\n[regtest]\nrpcport=2\n');
  assert.equal(b.getArg('rpcport'), '2');
  assert.deepEqual(b.unsuitableSectionOnlyArgs(networkOnlyOptions()), []);
  const main = argsFrom([], 'rpcport=1\n');
  assert.equal(main.getArg('rpcport'), '1');
  const neg = argsFrom(['-regtest'], 'noconnect=1\n');
  assert.equal(neg.isArgNegated('connect'), true);
});

test('chain selection and its errors', () => {
  assert.equal(argsFrom([]).chain(), 'main');
  assert.equal(argsFrom(['-chain=testnet4']).chain(), 'testnet4');
  assert.equal(argsFrom([], 'signet=1\n').chain(), 'signet');
  assert.equal(argsFrom(['-testnet']).chain(), 'test');
  assert.throws(() => argsFrom(['-regtest', '-chain=main']), /Invalid combination of -regtest, -signet, -testnet, -testnet4 and -chain\. Can use at most one\./);
  assert.throws(() => argsFrom(['-chain=foo']), new ConfigError('Unknown chain foo.'));
});

test('loadConfig: data directory, conf file, network folder, init errors', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tsbtcd-config-'));
  try {
    fs.writeFileSync(path.join(dir, 'bitcoin.conf'), 'regtest=1\n[regtest]\nrpcport=1234\n');
    const c = loadConfig([`-datadir=${dir}`], {});
    assert.equal(c.chain, 'regtest');
    assert.equal(c.netDir, path.join(dir, 'regtest'));
    assert.equal(c.rpcPortArg, '1234');
    assert.equal(c.rpcCookieFile, path.join(dir, 'regtest', '.cookie'));
    assert.equal(c.debugLogFile, path.join(dir, 'regtest', 'debug.log'));
    assert.equal(c.rpcFrontends, os.availableParallelism());
    assert.equal(loadConfig([`-datadir=${dir}`, '-rpcfrontends=3'], {}).rpcFrontends, 3);
    assert.equal(c.network.rpcPort, 18443);
    const main = loadConfig([`-datadir=${dir}`, '-noconf'], {});
    assert.equal(main.netDir, dir);
    assert.equal(main.confFile.path, '');
    assert.equal(loadConfig(['-noconf', '-regtest'], { HOME: '/home/x' }).dataDir, '/home/x/.bitcoin');
    assert.throws(() => loadConfig([`-datadir=${dir}/no`], {}), new InitError(`Specified data directory "${dir}/no" does not exist.`));
    assert.throws(() => loadConfig([`-datadir=${dir}`, `-conf=${dir}/none.conf`], {}), new InitError(`Error reading configuration file: specified config file "${dir}/none.conf" could not be opened.`));
    assert.throws(() => loadConfig([`-datadir=${dir}`, '-bogus'], {}), new InitError('Error parsing command line arguments: Invalid parameter -bogus'));
    assert.throws(() => loadConfig([`-datadir=${dir}`, '-noconf', '-regtest', '-testactivationheight=x@1'], {}), InitError);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
