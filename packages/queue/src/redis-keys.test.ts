import {
  cancelChannel,
  executionEventsChannel,
  fairShareKeys,
  queueSlotProbeKey,
  rateLimitBuckets,
  rateLimitCounterKey,
  streamSlotKeys,
} from './redis-keys';

/** Every key and channel botfleet builds, for one prefix. */
function everyKey(prefix: string): Record<string, string> {
  const fair = fairShareKeys(prefix, 'executions');
  const slots = streamSlotKeys(prefix, { organizationId: 'org_1', keyId: 'key_1' });
  return {
    cancel: cancelChannel(prefix),
    events: executionEventsChannel(prefix),
    fairClock: fair.clock,
    fairLast: fair.last,
    probe: queueSlotProbeKey(prefix, 'executions'),
    rateKey: rateLimitCounterKey(prefix, rateLimitBuckets.apiKey('key_1'), 29_000_000),
    rateOrganization: rateLimitCounterKey(prefix, rateLimitBuckets.organization('org_1'), 29_000_000),
    slotsOrganization: slots.organization,
    slotsKey: slots.key,
  };
}

/** The part of a key Redis Cluster hashes: the first non-empty `{...}`, else the whole key. */
function hashedPart(key: string): string {
  const open = key.indexOf('{');
  const close = open === -1 ? -1 : key.indexOf('}', open + 1);
  return close > open + 1 ? key.slice(open + 1, close) : key;
}

it('keeps the names deployed processes share: a rolling upgrade runs old and new side by side', () => {
  expect(everyKey('botfleet')).toEqual({
    cancel: 'botfleet:execution-cancel',
    events: 'botfleet:execution-events',
    fairClock: 'botfleet:executions:fair:clock',
    fairLast: 'botfleet:executions:fair:last',
    probe: 'botfleet:executions:probe:ready',
    rateKey: 'botfleet:rate:key:key_1:29000000',
    rateOrganization: 'botfleet:rate:org:org_1:29000000',
    slotsOrganization: 'botfleet:stream-slots:org:org_1',
    slotsKey: 'botfleet:stream-slots:key:key_1',
  });
});

it("puts every key in the hash-tagged prefix's Cluster slot", () => {
  for (const [name, key] of Object.entries(everyKey('{botfleet}'))) {
    expect({ name, hashed: hashedPart(key) }).toEqual({ name, hashed: 'botfleet' });
  }
});

it('leaves a second `:` after the queue name, so no key beside a queue reads as a job id', () => {
  const besideQueue = [...Object.values(fairShareKeys('p', 'executions')), queueSlotProbeKey('p', 'executions')];
  for (const key of besideQueue) expect(key.slice('p:executions:'.length)).toContain(':');
});
