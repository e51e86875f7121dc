/**
 * Core's IsBadPort list (netbase.cpp, doc/p2p-bad-ports.md), which automatic outbound
 * connections avoid for their first 50 tries.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isBadPort } from '../../src/net/index.js';

test('the ports Core calls bad, and the networks\' own ports not among them', () => {
  let bad = 0;
  for (let port = 0; port <= 65535; port++) if (isBadPort(port)) bad++;
  assert.equal(bad, 85);
  for (const port of [1, 22, 25, 53, 465, 3306, 5432, 6667, 10080, 27017]) assert.ok(isBadPort(port), String(port));
  for (const port of [0, 443, 8333, 18333, 48333, 38333, 18444, 8332, 65535]) assert.equal(isBadPort(port), false, String(port));
});
