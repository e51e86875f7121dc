/**
 * A regtest block of ~2,000 transactions for the HTTP benchmark, built through a node's
 * RPC in seconds: every output is anyone-can-spend P2WSH(OP_TRUE) — Core's test-framework
 * address ADDRESS_BCRT1_P2WSH_OP_TRUE — so spends need no signature, only the witness
 * script. 101 blocks pay their coinbases there; one transaction splits the first mature
 * coinbase into `count` outputs (its own block), and the next block holds `count`
 * transactions spending one output each into two outputs: with its coinbase, count + 1
 * transactions of 1 input and 2 outputs (witness v0), 142 bytes each.
 */
import { hashToHex, hexToHash, sha256, Transaction, type TxOut } from '../src/primitives/index.js';
import { encodeAddress } from '../src/script/index.js';

/** The part of a daemon handle this needs (test/integration/daemon-harness's Daemon fits). */
export interface RpcNode {
  call<T = any>(method: string, params?: unknown): Promise<T>;
}

export interface BigBlock {
  readonly hash: string;
  readonly height: number;
  /** Transactions, coinbase included. */
  readonly txCount: number;
  /** Serialized size in bytes. */
  readonly size: number;
}

const OP_TRUE_SCRIPT = Uint8Array.of(0x51);
/** OP_0 <sha256(OP_TRUE)>. */
const P2WSH_OP_TRUE = Uint8Array.of(0x00, 0x20, ...sha256(OP_TRUE_SCRIPT));
const FEE = 1000n;

function spendOpTrue(prevouts: readonly { txid: string; vout: number }[], outputs: readonly bigint[]): Transaction {
  return new Transaction({
    version: 2,
    inputs: prevouts.map((p) => ({ prevout: { txid: hexToHash(p.txid), vout: p.vout }, scriptSig: new Uint8Array(0), sequence: 0xfffffffe, witness: [OP_TRUE_SCRIPT] })),
    outputs: outputs.map((value): TxOut => ({ value, scriptPubKey: P2WSH_OP_TRUE })),
    locktime: 0,
  });
}

const hex = (tx: Transaction): string => Buffer.from(tx.toBytes()).toString('hex');

/** Mines the chain described above on `node` (a fresh regtest node); returns the big block. */
export async function buildBigBlock(node: RpcNode, count = 2000): Promise<BigBlock> {
  const address = encodeAddress(P2WSH_OP_TRUE, 'regtest');
  if (!address) throw new Error('no address for P2WSH(OP_TRUE)');
  const [first] = await node.call<string[]>('generatetoaddress', [101, address]);
  const coinbase = await node.call<{ tx: { txid: string; vout: { value: number }[] }[] }>('getblock', [first, 2]);
  const coinbaseTx = coinbase.tx[0]!;
  const coinbaseValue = BigInt(Math.round(coinbaseTx.vout[0]!.value * 1e8));
  const each = (coinbaseValue - FEE) / BigInt(count);
  const split = spendOpTrue([{ txid: coinbaseTx.txid, vout: 0 }], Array.from({ length: count }, () => each));
  await node.call('generateblock', [address, [hex(split)]]);
  const splitTxid = hashToHex(split.txid);
  const spends = Array.from({ length: count }, (_, vout) => {
    const rest = each - FEE;
    return hex(spendOpTrue([{ txid: splitTxid, vout }], [rest / 3n, rest - rest / 3n]));
  });
  const { hash } = await node.call<{ hash: string }>('generateblock', [address, spends]);
  const header = await node.call<{ height: number; nTx: number }>('getblockheader', [hash]);
  const raw = await node.call<string>('getblock', [hash, 0]);
  return { hash, height: header.height, txCount: header.nTx, size: raw.length / 2 };
}
