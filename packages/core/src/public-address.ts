import ipaddr from 'ipaddr.js';

/**
 * Only globally routable unicast is allowed. Everything else ipaddr.js names (private, loopback,
 * linkLocal, uniqueLocal, multicast, unspecified, carrierGradeNat, broadcast, reserved, ...) is
 * refused, so a range added to a later ipaddr.js release is refused by default rather than allowed.
 */
const PUBLIC_RANGE = 'unicast';

/** IPv6 forms that carry an IPv4 address the kernel or a NAT64 gateway may route to. */
function embeddedIPv4(address: ipaddr.IPv6): ipaddr.IPv4 | null {
  const parts = address.parts;
  const range = address.range();
  const low32 = (): ipaddr.IPv4 =>
    new ipaddr.IPv4([parts[6]! >> 8, parts[6]! & 0xff, parts[7]! >> 8, parts[7]! & 0xff]);
  if (range === 'ipv4Mapped' || range === 'rfc6145' || range === 'rfc6052') return low32();
  if (range === '6to4') return new ipaddr.IPv4([parts[1]! >> 8, parts[1]! & 0xff, parts[2]! >> 8, parts[2]! & 0xff]);
  // Deprecated IPv4-compatible form (::a.b.c.d); :: and ::1 have their own ranges already.
  if (parts.slice(0, 6).every((p) => p === 0) && range === PUBLIC_RANGE) return low32();
  return null;
}

/**
 * Whether an IP address is on the public internet. Anything that does not parse as an IP is
 * treated as not public, so a caller that forgets to resolve a hostname fails closed.
 */
export function isPublicAddress(address: string): boolean {
  const bare = address.replace(/^\[(.*)\]$/, '$1');
  if (!ipaddr.isValid(bare)) return false;
  const parsed = ipaddr.parse(bare);
  if (parsed.kind() === 'ipv6') {
    const inner = embeddedIPv4(parsed as ipaddr.IPv6);
    if (inner) return inner.range() === PUBLIC_RANGE;
  }
  return parsed.range() === PUBLIC_RANGE;
}
