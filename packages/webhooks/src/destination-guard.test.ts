import type { LookupAddress } from 'node:dns';
import { assertLiteralHostAllowed, createGuardedLookup, isPublicAddress } from './destination-guard';
import { DestinationRefusedError } from './errors';

describe('isPublicAddress', () => {
  it.each([
    '10.1.2.3',
    '172.16.0.1',
    '172.31.255.255',
    '192.168.1.1',
    '127.0.0.1',
    '127.8.9.10',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '255.255.255.255',
    '224.0.0.1',
    '::1',
    '::',
    'fc00::1',
    'fd12:3456::1',
    'fe80::1',
    'ff02::1',
    '::ffff:127.0.0.1',
    '::ffff:10.0.0.1',
    '::ffff:169.254.169.254',
    '[::1]',
    '64:ff9b::a00:1',
    '2002:7f00:1::',
    'not-an-ip',
    '',
  ])('refuses %s', (address) => {
    expect(isPublicAddress(address)).toBe(false);
  });

  it.each(['8.8.8.8', '1.1.1.1', '172.32.0.1', '100.128.0.1', '2606:4700::1', '::ffff:8.8.8.8', '[2606:4700::1111]'])(
    'allows %s',
    (address) => {
      expect(isPublicAddress(address)).toBe(true);
    },
  );
});

describe('assertLiteralHostAllowed', () => {
  it('refuses private IP literals, naming the host as given', () => {
    expect(() => assertLiteralHostAllowed('127.0.0.1', { allowPrivateNetwork: false })).toThrow(
      'destination_not_allowed: 127.0.0.1',
    );
    expect(() => assertLiteralHostAllowed('[::1]', { allowPrivateNetwork: false })).toThrow(
      new DestinationRefusedError('[::1]'),
    );
  });

  it('leaves hostnames to the lookup and allows everything when private networks are allowed', () => {
    expect(() => assertLiteralHostAllowed('localhost', { allowPrivateNetwork: false })).not.toThrow();
    expect(() => assertLiteralHostAllowed('8.8.8.8', { allowPrivateNetwork: false })).not.toThrow();
    expect(() => assertLiteralHostAllowed('127.0.0.1', { allowPrivateNetwork: true })).not.toThrow();
  });
});

describe('createGuardedLookup', () => {
  function lookup(hostname: string, all: boolean): Promise<{ address: string | LookupAddress[]; family?: number }> {
    return new Promise((resolve, reject) => {
      createGuardedLookup()(hostname, { all }, (err, address, family) =>
        err ? reject(err) : resolve({ address, family }),
      );
    });
  }

  it('refuses a name that resolves to loopback, naming the name and never the address', async () => {
    const refusal = (await lookup('localhost', false).then(
      () => null,
      (err: unknown) => err,
    )) as DestinationRefusedError;
    expect(refusal).toBeInstanceOf(DestinationRefusedError);
    expect(refusal.message).toBe('destination_not_allowed: localhost');
    // Nothing the error carries tells how the name resolved.
    expect(JSON.stringify({ ...refusal, message: refusal.message })).not.toMatch(/127\.0\.0\.1|::1/);
  });

  it('answers in the shape net asks for when the address is public', async () => {
    // An IP literal resolves without touching the network.
    await expect(lookup('8.8.8.8', false)).resolves.toEqual({ address: '8.8.8.8', family: 4 });
    await expect(lookup('8.8.8.8', true)).resolves.toEqual({
      address: [{ address: '8.8.8.8', family: 4 }],
      family: undefined,
    });
  });
});
