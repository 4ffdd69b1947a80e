import dns from 'node:dns';
import net from 'node:net';
import ipaddr from 'ipaddr.js';
import { DestinationRefusedError } from './errors';

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

export interface DestinationPolicy {
  allowPrivateNetwork: boolean;
}

/**
 * Refuses an IP-literal host up front: Node skips `lookup` for IP literals, so the guarded lookup
 * alone would let `http://127.0.0.1/` through. Hostnames are left to the lookup.
 */
export function assertLiteralHostAllowed(host: string, policy: DestinationPolicy): void {
  if (policy.allowPrivateNetwork) return;
  const bare = host.replace(/^\[(.*)\]$/, '$1');
  if (net.isIP(bare) !== 0 && !isPublicAddress(bare)) throw new DestinationRefusedError(bare, bare);
}

/**
 * A `lookup` for http.request/net.connect that resolves and checks in the same step the socket
 * connects with, so a DNS answer that changes between a check and the connect (rebinding) cannot
 * slip a private address through. A name with any non-public address is refused outright rather
 * than filtered: mixing public and private answers is itself a sign of trouble.
 */
export function createGuardedLookup(): net.LookupFunction {
  return (hostname, options, callback) => {
    dns.lookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, []);
      const refused = addresses.find((entry) => !isPublicAddress(entry.address));
      if (refused) return callback(new DestinationRefusedError(hostname, refused.address), []);
      const first = addresses[0];
      if (!first) {
        const empty: NodeJS.ErrnoException = new Error(`no address found for ${hostname}`);
        empty.code = 'ENOTFOUND';
        return callback(empty, []);
      }
      // net asks for every address when autoSelectFamily (happy eyeballs) is on, one otherwise.
      if (options.all) return callback(null, addresses);
      return callback(null, first.address, first.family);
    });
  };
}
