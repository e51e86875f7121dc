/**
 * Banned networks and discouraged addresses (Core's BanMan): setban bans an address or
 * subnet until a time, persisted in `<netdir>/banlist.json` in Core's format so a restart
 * keeps them; misbehaving peers' addresses are discouraged (a bounded, unpersisted set)
 * and get inbound slots only when nothing else wants them.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { addressBytes, canonicalAddress, formatAddress, parseSubnet, subnetMatches, type SubnetSpec } from '../primitives/index.js';
import { writeFileAtomic } from '../storage/index.js';
import { RecentSet } from './peer.js';

/** Core's DEFAULT_MISBEHAVING_BANTIME: a ban lasts a day unless told otherwise. */
export const DEFAULT_BAN_SECONDS = 24 * 60 * 60;
const BANLIST_FILE = 'banlist.json';

export interface BanEntry {
  /** Core's CSubNet::ToString: "1.2.3.4/32", "10.0.0.0/8", "::1/128". */
  readonly address: string;
  readonly subnet: SubnetSpec;
  readonly created: number;
  readonly until: number;
}

/** Core's CSubNet::ToString: the network address (masked) and its prefix length. */
export function subnetText(subnet: SubnetSpec): string {
  const masked = subnet.bytes.map((b, i) => {
    const bits = Math.max(0, Math.min(8, subnet.prefix - 8 * i));
    return b & ((0xff << (8 - bits)) & 0xff);
  });
  return `${formatAddress(masked)}/${subnet.prefix}`;
}

export class BanManager {
  readonly #banned = new Map<string, BanEntry>();
  readonly #discouraged = new RecentSet(50_000);

  constructor(
    private readonly dir: string | undefined,
    private readonly now: () => number,
    private readonly log: (message: string) => void,
  ) {
    this.#load();
  }

  #load(): void {
    if (!this.dir) return;
    let text: string;
    try {
      text = readFileSync(join(this.dir, BANLIST_FILE), 'utf8');
    } catch {
      return;
    }
    try {
      const json = JSON.parse(text) as { banned_nets?: { address: string; ban_created: number; banned_until: number }[] };
      for (const entry of json.banned_nets ?? []) {
        const subnet = parseSubnet(entry.address);
        if (subnet) this.#banned.set(subnetText(subnet), { address: subnetText(subnet), subnet, created: entry.ban_created, until: entry.banned_until });
      }
      this.sweep();
      this.log(`Loaded ${this.#banned.size} banned node addresses/subnets`);
    } catch (err) {
      this.log(`Invalid or missing banlist.json; recreating (${(err as Error).message})`);
    }
  }

  #save(): void {
    if (!this.dir) return;
    const json = {
      banned_nets: [...this.#banned.values()].map((b) => ({ version: 1, ban_created: b.created, banned_until: b.until, address: b.address })),
    };
    writeFileAtomic(join(this.dir, BANLIST_FILE), new TextEncoder().encode(JSON.stringify(json, null, 4) + '\n'));
  }

  /** Parses setban's address; undefined when it is not an IP or subnet. */
  static parse(text: string): SubnetSpec | undefined {
    return parseSubnet(text);
  }

  /** False when exactly this subnet is already banned. */
  ban(subnet: SubnetSpec, seconds: number, absolute: boolean): boolean {
    this.sweep();
    const address = subnetText(subnet);
    if (this.#banned.has(address)) return false;
    const now = this.now();
    const until = absolute ? seconds : now + (seconds > 0 ? seconds : DEFAULT_BAN_SECONDS);
    this.#banned.set(address, { address, subnet, created: now, until });
    this.#save();
    return true;
  }

  unban(subnet: SubnetSpec): boolean {
    const removed = this.#banned.delete(subnetText(subnet));
    if (removed) this.#save();
    return removed;
  }

  clear(): void {
    this.#banned.clear();
    this.#save();
  }

  /** Drops expired bans (Core's SweepBanned). */
  sweep(): void {
    const now = this.now();
    let changed = false;
    for (const [key, entry] of this.#banned) {
      if (entry.until <= now) {
        this.#banned.delete(key);
        changed = true;
      }
    }
    if (changed) this.#save();
  }

  list(): BanEntry[] {
    this.sweep();
    return [...this.#banned.values()];
  }

  isBanned(ip: string): boolean {
    const bytes = addressBytes(ip);
    if (!bytes) return false;
    const address = canonicalAddress(bytes);
    const now = this.now();
    for (const entry of this.#banned.values()) if (entry.until > now && subnetMatches(entry.subnet, address)) return true;
    return false;
  }

  discourage(ip: string): void {
    this.#discouraged.add(canonicalText(ip));
  }

  isDiscouraged(ip: string): boolean {
    return this.#discouraged.has(canonicalText(ip));
  }

  /** Whether a subnet covers this IP (disconnecting banned peers). */
  static matches(subnet: SubnetSpec, ip: string): boolean {
    const bytes = addressBytes(ip);
    return !!bytes && subnetMatches(subnet, canonicalAddress(bytes));
  }
}

function canonicalText(ip: string): string {
  const bytes = addressBytes(ip);
  return bytes ? formatAddress(canonicalAddress(bytes)) : ip;
}
