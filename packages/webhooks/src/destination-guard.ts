import dns from 'node:dns';
import net from 'node:net';
import { isPublicAddress } from '@botfleet/core';
import { DestinationRefusedError } from './errors';

export { isPublicAddress };

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
