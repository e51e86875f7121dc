/**
 * Core's fixed seeds as address-manager entries (net.cpp's ConvertSeeds and
 * GetReachableEmptyNetworks): the network parameters carry the BIP155-serialized list
 * (ChainParams.fixedSeeds); here it becomes CAddresses dated one to two weeks back with the
 * services Core assumes of a seed, and the networks it may fill are named.
 */
import { ByteReader } from '../primitives/index.js';
import { BIP155_NETWORK, type PeerAddress } from './addresses.js';
import { addressNetwork, NET_CJDNS, NET_I2P, NET_IPV4, NET_IPV6, NET_ONION, type AddrMan, type Network, type ServiceAddress } from './addrman.js';
import { NODE_NETWORK, NODE_WITNESS } from './protocol.js';

/** Core's SeedsServiceFlags(): what a seed is assumed to offer. */
export const SEEDS_SERVICE_FLAGS = NODE_NETWORK | NODE_WITNESS;
/** Core's SetNetFromBIP155Network: the lengths of the networks it knows (Tor v2 is no longer one). */
export const BIP155_ADDRESS_LENGTH: Readonly<Record<number, number>> = { [BIP155_NETWORK.IPV4]: 4, [BIP155_NETWORK.IPV6]: 16, [BIP155_NETWORK.TORV3]: 32, [BIP155_NETWORK.I2P]: 32, [BIP155_NETWORK.CJDNS]: 16 };
const ONE_WEEK = 7 * 24 * 3600;

/**
 * The endpoints of a BIP155-serialized seed list (CService in V2_NETWORK encoding, one
 * after another): network id, CompactSize length, address, big-endian port. A tuple of a
 * known network with the wrong length is an error, as Core's deserializer throws.
 */
export function decodeFixedSeeds(bytes: Uint8Array): ServiceAddress[] {
  const r = new ByteReader(bytes);
  const out: ServiceAddress[] = [];
  while (r.offset < bytes.length) {
    const network = r.u8();
    const length = r.compactSize();
    const expected = BIP155_ADDRESS_LENGTH[network];
    if (expected !== undefined && length !== expected) throw new RangeError(`BIP155 network ${network} address with length ${length} (should be ${expected})`);
    const address = r.slice(length);
    const port = (r.u8() << 8) | r.u8();
    out.push({ network, address, port });
  }
  return out;
}

/**
 * Core's ConvertSeeds: each seed with SeedsServiceFlags() and a last-seen time drawn
 * uniformly from one to two weeks before `now` (rand_uniform_delay(now - 1 week, -1 week):
 * a whole number of seconds in (-1 week, 0]), so real gossip soon outranks them.
 */
export function convertSeeds(bytes: Uint8Array, now: number, random: () => number = Math.random): PeerAddress[] {
  return decodeFixedSeeds(bytes).map((seed) => ({ ...seed, time: now - ONE_WEEK - Math.floor(random() * ONE_WEEK), services: SEEDS_SERVICE_FLAGS }));
}

/** The networks Core's GetReachableEmptyNetworks walks (all but unroutable and internal). */
const SEEDABLE_NETWORKS: readonly Network[] = [NET_IPV4, NET_IPV6, NET_ONION, NET_I2P, NET_CJDNS];

/** Core's GetReachableEmptyNetworks: the reachable networks the address manager has no address of. */
export function reachableEmptyNetworks(addrman: AddrMan, isReachable: (network: Network) => boolean): Set<Network> {
  return new Set(SEEDABLE_NETWORKS.filter((net) => isReachable(net) && addrman.size(net) === 0));
}

/** The seeds worth adding: those of the networks `networks` names (Core erases the rest before Add). */
export function seedsForNetworks(seeds: readonly PeerAddress[], networks: ReadonlySet<Network>): PeerAddress[] {
  return seeds.filter((seed) => networks.has(addressNetwork(seed)));
}
