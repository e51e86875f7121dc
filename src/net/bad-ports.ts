/**
 * Core's IsBadPort (netbase.cpp, doc/p2p-bad-ports.md): ports of other well-known services.
 * Automatic outbound connections avoid them for their first 50 tries, so that gossiped
 * addresses cannot point the network's nodes at a victim's SSH, SMTP or database ports.
 */
const BAD_PORTS: ReadonlySet<number> = new Set([
  1, 7, 9, 11, 13, 15, 17, 19, 20, 21, 22, 23, 25, 37, 42, 43, 53, 69, 77, 79, 87, 95, 101, 102, 103, 104, 109, 110, 111, 113, 115, 117,
  119, 123, 135, 137, 139, 143, 161, 179, 389, 427, 465, 512, 513, 514, 515, 526, 530, 531, 532, 540, 548, 554, 556, 563, 587, 601, 636,
  989, 990, 993, 995, 1719, 1720, 1723, 2049, 3306, 3389, 3659, 4045, 5060, 5061, 5432, 5900, 6000, 6566, 6665, 6666, 6667, 6668, 6669,
  6697, 10080, 27017,
]);

export function isBadPort(port: number): boolean {
  return BAD_PORTS.has(port);
}
