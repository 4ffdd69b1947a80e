import dns from 'node:dns';
import type { LookupFunction } from 'node:net';
import { isPublicAddress } from '@botfleet/core';

export interface GuardedLookupOptions {
  /** Builds the error a refused name fails its connection with. */
  refuse(hostname: string, address: string): Error;
  /** Which resolved addresses may be connected to; public ones by default. */
  isAllowedAddress?: (address: string) => boolean;
  /** The resolver; dns.lookup by default (tests inject one to simulate rebinding). */
  resolve?: typeof dns.lookup;
}

/**
 * A `lookup` for http.request/net.connect that resolves and checks in the same step the socket
 * connects with, so a DNS answer that changes between a check and the connect (rebinding) cannot
 * slip a private address through. A name with any refused address is refused outright rather
 * than filtered: mixing public and private answers is itself a sign of trouble. Node skips
 * `lookup` for IP literals: callers check those themselves.
 */
export function createGuardedLookup(options: GuardedLookupOptions): LookupFunction {
  const isAllowed = options.isAllowedAddress ?? isPublicAddress;
  const resolve = options.resolve ?? dns.lookup;
  return (hostname, lookupOptions, callback) => {
    resolve(hostname, { ...lookupOptions, all: true }, (err, addresses) => {
      if (err) return callback(err, []);
      const refused = addresses.find((entry) => !isAllowed(entry.address));
      if (refused) return callback(options.refuse(hostname, refused.address), []);
      const first = addresses[0];
      if (!first) {
        const empty: NodeJS.ErrnoException = new Error(`no address found for ${hostname}`);
        empty.code = 'ENOTFOUND';
        return callback(empty, []);
      }
      // net asks for every address when autoSelectFamily (happy eyeballs) is on, one otherwise.
      if (lookupOptions.all) return callback(null, addresses);
      return callback(null, first.address, first.family);
    });
  };
}
