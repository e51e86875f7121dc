/**
 * /rest/headers JSON for a run of the active chain, written as text in one pass: the
 * objects Core's blockheaderToJSON gives (the RPC renderer headerToJson), field for field,
 * from the headers table instead of one index entry per header. A run is consecutive
 * heights, so each header's hash is the next one's prevHash, its chain work the previous
 * one's plus its own proof, and its median time past a sliding window of eleven times;
 * only nTx needs the index (one read per header). 2,000 headers through headerToJson and
 * writeJson cost several index reads and a generic object walk each, about four times
 * what bitcoind spends on the same answer; test/unit/rest-headers-json.test.ts holds this
 * text to that renderer's byte for byte.
 */
import type { SnapshotChainView } from '../chain/index.js';
import { blockProof, compactToTarget, deriveTarget, getDifficulty, uint256Hex } from '../consensus/index.js';
import { HEADER_SIZE, hashToHex } from '../primitives/index.js';
import { doubleJson } from '../rpc/index.js';

/** Blocks in a median time past: the block and up to ten before it. */
const MTP_SPAN = 11;

/** What headerToJson derives from a header's bits alone; consecutive headers mostly share them. */
interface BitsFields {
  readonly bits: number;
  readonly text: string;
  readonly proof: bigint;
}

function bitsFields(bits: number, powLimit: bigint): BitsFields {
  const target = deriveTarget(bits, powLimit) ?? compactToTarget(bits);
  const text = `"bits":"${hex8(bits)}","target":"${uint256Hex(target)}","difficulty":${doubleJson(getDifficulty(bits)).text}`;
  return { bits, text, proof: blockProof(bits) };
}

function hex8(value: number): string {
  return (value >>> 0).toString(16).padStart(8, '0');
}

/** The median of the last MTP_SPAN times pushed (fewer at the chain's start), as GetMedianTimePast takes it. */
class MedianWindow {
  private readonly times: number[] = [];
  private readonly sorted: number[] = [];

  push(time: number): void {
    if (this.times.length === MTP_SPAN) this.sorted.splice(this.sorted.indexOf(this.times.shift()!), 1);
    this.times.push(time);
    let i = this.sorted.length;
    while (i > 0 && this.sorted[i - 1]! > time) i--;
    this.sorted.splice(i, 0, time);
  }

  get median(): number {
    return this.sorted[Math.floor(this.sorted.length / 2)]!;
  }
}

/**
 * The JSON array (and LF) of the active chain's headers from `from`, `count` of them
 * (within 0..tip); `startChainWork` is the chain work of the block at `from`.
 */
export function activeHeadersJson(snapshot: SnapshotChainView, from: number, count: number, startChainWork: bigint): Buffer {
  if (count === 0) return Buffer.from('[]\n');
  const tipHeight = snapshot.height;
  // The run, up to ten headers before it (median times) and one after it (its hash).
  const lo = Math.max(0, from - (MTP_SPAN - 1));
  const hi = Math.min(tipHeight, from + count);
  const headers = snapshot.reader.activeHeaders(lo, hi - lo + 1);
  const view = new DataView(headers.buffer, headers.byteOffset, headers.byteLength);
  const at = (height: number): number => (height - lo) * HEADER_SIZE;
  const hashOf = (height: number): Uint8Array => (height < hi ? headers.subarray(at(height + 1) + 4, at(height + 1) + 36) : snapshot.reader.activeHash(hi)!);

  const window = new MedianWindow();
  for (let h = lo; h < from; h++) window.push(view.getUint32(at(h) + 68, true));
  const powLimit = snapshot.params.powLimit;
  let fields: BitsFields | undefined;
  let chainWork = startChainWork;
  // Each hash is shown three times (hash, the next one's previousblockhash, the previous one's nextblockhash).
  let hash = hashOf(from);
  let hashHex = hashToHex(hash);
  let prevHex = from > 0 ? hashToHex(headers.subarray(at(from) + 4, at(from) + 36)) : '';
  let out = Buffer.allocUnsafeSlow(count * 700);
  let used = 0;
  out[used++] = 0x5b; // [
  for (let h = from; h < from + count; h++) {
    const o = at(h);
    const time = view.getUint32(o + 68, true);
    const bits = view.getUint32(o + 72, true);
    if (fields?.bits !== bits) fields = bitsFields(bits, powLimit);
    if (h > from) chainWork += fields.proof;
    window.push(time);
    const version = view.getInt32(o, true);
    let text =
      `{"hash":"${hashHex}","confirmations":${tipHeight - h + 1},"height":${h},"version":${version},"versionHex":"${hex8(version)}",` +
      `"merkleroot":"${hashToHex(headers.subarray(o + 36, o + 68))}","time":${time},"mediantime":${window.median},"nonce":${view.getUint32(o + 76, true)},` +
      `${fields.text},"chainwork":"${uint256Hex(chainWork)}","nTx":${snapshot.reader.blockTxCount(hash)}`;
    if (h > 0) text += `,"previousblockhash":"${prevHex}"`;
    prevHex = hashHex;
    if (h < tipHeight) {
      hash = hashOf(h + 1);
      hashHex = hashToHex(hash);
      text += `,"nextblockhash":"${hashHex}"`;
    }
    text += h + 1 < from + count ? '},' : '}]\n';
    if (used + text.length > out.length) {
      const grown = Buffer.allocUnsafeSlow(Math.max(out.length * 2, used + text.length));
      out.copy(grown, 0, 0, used);
      out = grown;
    }
    used += out.write(text, used, 'latin1');
  }
  return out.subarray(0, used);
}
