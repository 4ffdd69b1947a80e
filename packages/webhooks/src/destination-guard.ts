import net from 'node:net';
import { isPublicAddress } from '@botfleet/core';
import { createGuardedLookup as createSharedGuardedLookup } from '@botfleet/io';
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
  if (net.isIP(bare) !== 0 && !isPublicAddress(bare)) throw new DestinationRefusedError(host);
}

/** The guarded lookup (connect-time check) whose refusals are DestinationRefusedErrors. */
export function createGuardedLookup(): net.LookupFunction {
  // The resolved address is dropped here, on purpose (see DestinationRefusedError).
  return createSharedGuardedLookup({ refuse: (hostname) => new DestinationRefusedError(hostname) });
}
