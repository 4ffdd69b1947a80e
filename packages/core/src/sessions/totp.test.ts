import { InvalidTotpError, totpCode, totpFromSecret, totpFromUri, totpRemainingMs, type TotpSettings } from './totp';

/*
 * RFC 6238 appendix B: the reference keys are the ASCII strings "1234567890" repeated to the
 * hash's length (20, 32 and 64 bytes), 8 digits, 30 s steps.
 */
const base32Of = (ascii: string) => {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  let bits = '';
  for (const byte of Buffer.from(ascii, 'ascii')) bits += byte.toString(2).padStart(8, '0');
  let out = '';
  for (let i = 0; i < bits.length; i += 5) out += alphabet[parseInt(bits.slice(i, i + 5).padEnd(5, '0'), 2)];
  return out;
};
const RFC_KEYS = {
  SHA1: base32Of('12345678901234567890'),
  SHA256: base32Of('12345678901234567890123456789012'),
  SHA512: base32Of('1234567890123456789012345678901234567890123456789012345678901234'),
} as const;

const RFC_6238_VECTORS: [seconds: number, algorithm: keyof typeof RFC_KEYS, code: string][] = [
  [59, 'SHA1', '94287082'],
  [59, 'SHA256', '46119246'],
  [59, 'SHA512', '90693936'],
  [1111111109, 'SHA1', '07081804'],
  [1111111109, 'SHA256', '68084774'],
  [1111111109, 'SHA512', '25091201'],
  [1111111111, 'SHA1', '14050471'],
  [1111111111, 'SHA256', '67062674'],
  [1111111111, 'SHA512', '99943326'],
  [1234567890, 'SHA1', '89005924'],
  [1234567890, 'SHA256', '91819424'],
  [1234567890, 'SHA512', '93441116'],
  [2000000000, 'SHA1', '69279037'],
  [2000000000, 'SHA256', '90698825'],
  [2000000000, 'SHA512', '38618901'],
  [20000000000, 'SHA1', '65353130'],
  [20000000000, 'SHA256', '77737706'],
  [20000000000, 'SHA512', '47863826'],
];

describe('totpCode', () => {
  it.each(RFC_6238_VECTORS)('gives the RFC 6238 code at T=%i with %s', (seconds, algorithm, code) => {
    const settings: TotpSettings = { secret: RFC_KEYS[algorithm], algorithm, digits: 8, period: 30 };
    expect(totpCode(settings, seconds * 1000)).toBe(code);
  });

  it('gives the same code through an otpauth URI with the same parameters', () => {
    const settings = totpFromUri(
      `otpauth://totp/Example:alice@example.com?secret=${RFC_KEYS.SHA256}&issuer=Example&algorithm=SHA256&digits=8&period=30`,
    );
    expect(settings).toEqual({ secret: RFC_KEYS.SHA256, algorithm: 'SHA256', digits: 8, period: 30 });
    expect(totpCode(settings, 1111111109_000)).toBe('68084774');
  });

  it('uses SHA-1, 6 digits and 30 s unless told otherwise, the last 6 digits of the 8-digit code', () => {
    const settings = totpFromSecret(RFC_KEYS.SHA1);
    expect(settings).toEqual({ secret: RFC_KEYS.SHA1, algorithm: 'SHA1', digits: 6, period: 30 });
    expect(totpCode(settings, 59_000)).toBe('287082');
    expect(totpFromUri(`otpauth://totp/x?secret=${RFC_KEYS.SHA1}`)).toEqual(settings);
  });

  it('says how long the current code lasts', () => {
    const settings = totpFromSecret(RFC_KEYS.SHA1);
    expect(totpRemainingMs(settings, 59_000)).toBe(1_000);
    expect(totpRemainingMs(settings, 60_000)).toBe(30_000);
  });
});

describe('reading secrets and URIs', () => {
  it('takes secrets as authenticator apps show them: grouped, lower case, padded', () => {
    const grouped = RFC_KEYS.SHA1.toLowerCase()
      .replace(/(.{4})/g, '$1 ')
      .trim();
    expect(totpFromSecret(grouped).secret).toBe(RFC_KEYS.SHA1);
    expect(totpFromSecret(`${RFC_KEYS.SHA1}====`).secret).toBe(RFC_KEYS.SHA1);
  });

  const SECRET = 'JBSWY3DPEHPK3PXPJBSWY3DP';
  it.each([
    ['not base32', 'not-a-secret!!!!!!'],
    ['too short', 'JBSWY3DP'],
    ['empty', ''],
  ])('refuses a secret that is %s', (_why, secret) => {
    expect(() => totpFromSecret(secret)).toThrow(InvalidTotpError);
  });

  it.each([
    ['an HOTP URI', `otpauth://hotp/x?secret=${SECRET}&counter=1`],
    ['no secret', 'otpauth://totp/x?issuer=Example'],
    ['a bad secret', 'otpauth://totp/x?secret=0189!!'],
    ['5 digits', `otpauth://totp/x?secret=${SECRET}&digits=5`],
    ['an unknown algorithm', `otpauth://totp/x?secret=${SECRET}&algorithm=MD5`],
    ['a zero period', `otpauth://totp/x?secret=${SECRET}&period=0`],
    ['another scheme', `https://example.com/?secret=${SECRET}`],
    ['not a URI', 'hello'],
  ])('refuses a URI with %s, without repeating the secret', (_why, uri) => {
    let message = '';
    try {
      totpFromUri(uri);
    } catch (error) {
      expect(error).toBeInstanceOf(InvalidTotpError);
      message = (error as Error).message;
    }
    expect(message).not.toBe('');
    expect(message).not.toContain(SECRET);
    expect(message).not.toContain('0189');
  });
});
