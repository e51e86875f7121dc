/**
 * peers.dat as Core's addrdb.cpp reads and writes it (SerializeDB / DeserializeDB,
 * DumpPeerAddresses, LoadAddrman): the network's message start, the AddrMan serialization
 * (addrman.ts) and SHA-256d of both. A file of another network, with a bad checksum or
 * with corrupt contents is refused with Core's reason; one written by a newer,
 * incompatible format is set aside as peers.dat.bak and replaced, as Core does.
 */
import { readFileSync, renameSync } from 'node:fs';
import { ByteReader, bytesEqual, concatBytes, sha256d } from '../primitives/index.js';
import { writeFileAtomic } from '../storage/index.js';
import { AddrMan, AddrManFormatError, AddrManVersionError, isEndOfData, type AddrManOptions } from './addrman.js';

/** Where Core's init error tells users to report a corrupt peers.dat. */
export const PEERS_DAT_BUG_REPORT = 'https://github.com/bitcoin/bitcoin/issues';

/** A peers.dat that cannot be read: `reason` is Core's (what its exception says). */
export class PeersDatError extends Error {
  override readonly name = 'PeersDatError';
  constructor(
    readonly reason: string,
    message = `Invalid or corrupt peers.dat (${reason})`,
  ) {
    super(message);
  }
}

/** The peers.dat bytes of an address manager: message start, serialization, SHA-256d of both. */
export function encodePeersDat(addrman: AddrMan, messageStart: Uint8Array): Uint8Array {
  const body = concatBytes(messageStart, addrman.serialize());
  return concatBytes(body, sha256d(body));
}

export interface DecodePeersDatOptions extends Omit<AddrManOptions, 'key'> {
  /** Verify the trailing checksum (DeserializeDB); false is Core's ReadFromStream. Default true. */
  readonly checksum?: boolean;
}

/**
 * An address manager from peers.dat bytes. Throws PeersDatError with Core's reason
 * ("Invalid network magic number", "Checksum mismatch, data corrupted", a truncation or
 * the serialization's own complaint), or AddrManVersionError for a newer format.
 */
export function decodePeersDat(bytes: Uint8Array, messageStart: Uint8Array, options: DecodePeersDatOptions = {}): AddrMan {
  const r = new ByteReader(bytes);
  try {
    if (!bytesEqual(r.slice(messageStart.length), messageStart)) throw new PeersDatError('Invalid network magic number');
    const addrman = AddrMan.deserialize(r, options);
    if (options.checksum ?? true) {
      const hashed = bytes.subarray(0, r.offset);
      const checksum = r.slice(32);
      if (!bytesEqual(checksum, sha256d(hashed))) throw new PeersDatError('Checksum mismatch, data corrupted');
    }
    return addrman;
  } catch (err) {
    if (err instanceof PeersDatError || err instanceof AddrManVersionError) throw err;
    // A std::ios_base::failure's what() under libstdc++ ends in ": iostream error".
    if (isEndOfData(err)) throw new PeersDatError('AutoFile::read: end of file: iostream error');
    if (err instanceof AddrManFormatError) throw new PeersDatError(`${err.message}: iostream error`);
    throw err;
  }
}

/** std::quoted, as fs::quoted prints a path in Core's messages. */
function quoted(path: string): string {
  return `"${path.replace(/["\\]/g, (c) => `\\${c}`)}"`;
}

/** Reads peers.dat at `path` (errors as decodePeersDat; a missing file is the fs error, code ENOENT). */
export function readPeersDat(path: string, messageStart: Uint8Array, options: DecodePeersDatOptions = {}): AddrMan {
  return decodePeersDat(new Uint8Array(readFileSync(path)), messageStart, options);
}

/**
 * Core's SerializeFileDB("peers", ...): writes a temporary peers.XXXX beside `path`,
 * flushes it to disk, then renames it over `path`.
 */
export function writePeersDat(path: string, addrman: AddrMan, messageStart: Uint8Array): void {
  writeFileAtomic(path, encodePeersDat(addrman, messageStart));
}

export interface LoadAddrmanOptions extends AddrManOptions {
  /** Where the corrupt-file message says to report (Core's CLIENT_BUGREPORT). */
  readonly bugReport?: string;
}

export interface LoadedAddrman {
  readonly addrman: AddrMan;
  /** loaded; created (no file: an empty one was written); replaced (an incompatible file moved to peers.dat.bak). */
  readonly status: 'loaded' | 'created' | 'replaced';
}

/**
 * Core's LoadAddrman: the address manager from peers.dat at `path`. A missing file gives an
 * empty address manager, written out at once; a file of a newer incompatible format is
 * renamed to peers.dat.bak and replaced by an empty one; any other failure throws
 * PeersDatError with Core's init error message (the reason, where to report, the path).
 */
export function loadAddrman(path: string, messageStart: Uint8Array, options: LoadAddrmanOptions = {}): LoadedAddrman {
  const { key: _key, bugReport = PEERS_DAT_BUG_REPORT, ...decodeOptions } = options;
  try {
    return { addrman: readPeersDat(path, messageStart, decodeOptions), status: 'loaded' };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') {
      const addrman = new AddrMan(options);
      writePeersDat(path, addrman, messageStart);
      return { addrman, status: 'created' };
    }
    if (err instanceof AddrManVersionError) {
      try {
        renameSync(path, `${path}.bak`);
      } catch {
        throw new Error('Failed to rename invalid peers.dat file. Please move or delete it and try again.');
      }
      const addrman = new AddrMan(options);
      writePeersDat(path, addrman, messageStart);
      return { addrman, status: 'replaced' };
    }
    const reason = err instanceof PeersDatError ? err.reason : (err as Error).message;
    throw new PeersDatError(
      reason,
      `Invalid or corrupt peers.dat (${reason}). If you believe this is a bug, please report it to ${bugReport}. ` +
        `As a workaround, you can move the file (${quoted(path)}) out of the way (rename, move, or delete) to have a new one created on the next start.`,
    );
  }
}
