import type { Page } from 'playwright-core';
import { PROFILE_SECRET_MIN_LENGTH, REDACTED, RunSecrets } from './run-secrets';

/** credentialValue refuses before it looks at the page in these cases: nothing may reach it. */
const UNTOUCHED_PAGE = new Proxy({} as Page, {
  get: () => {
    throw new Error('the page was used');
  },
});

describe('RunSecrets', () => {
  it('redacts every value it was given from text and data, longest first', () => {
    const secrets = new RunSecrets();
    secrets.add('hunter2-pass');
    secrets.add('hunter2');
    expect(secrets.redact('typed hunter2-pass then hunter2')).toBe(`typed ${REDACTED} then ${REDACTED}`);
    expect(secrets.redactData({ list: ['x hunter2'], hunter2: 1, n: 3, nothing: null })).toEqual({
      list: [`x ${REDACTED}`],
      [REDACTED]: 1,
      n: 3,
      nothing: null,
    });
  });

  it('leaves values too short to be secrets alone: a profile value of 8 characters is one, of 5 not', () => {
    const secrets = new RunSecrets();
    secrets.add('abc');
    secrets.add('en-US', PROFILE_SECRET_MIN_LENGTH);
    secrets.add('8841-2290', PROFILE_SECRET_MIN_LENGTH);
    secrets.add('a-long-session-token-value', PROFILE_SECRET_MIN_LENGTH);
    expect(secrets.redact('abc en-US pin=8841-2290 a-long-session-token-value')).toBe(
      `abc en-US pin=${REDACTED} ${REDACTED}`,
    );
  });

  it('redacts a value as a posted form or a query string carries it too', () => {
    const secrets = new RunSecrets();
    expect(secrets.empty).toBe(true);
    secrets.add('pa ss!w&rd');
    expect(secrets.empty).toBe(false);
    expect(secrets.redact('password=pa+ss%21w%26rd&next=1')).toBe(`password=${REDACTED}&next=1`);
    expect(secrets.redact('/login?p=pa%20ss!w%26rd')).toBe(`/login?p=${REDACTED}`);
  });

  it('says why a credential cannot be opened, without a value', async () => {
    const secrets = new RunSecrets(async () => {
      throw new Error('credential crd_x has no password');
    });
    await expect(
      secrets.credentialValue({ credential: 'crd_x', field: 'password' }, UNTOUCHED_PAGE, '#pw', 1_000),
    ).rejects.toThrow('has no password');
    await expect(
      new RunSecrets().credentialValue({ credential: 'crd_y', field: 'totp' }, UNTOUCHED_PAGE, '#otp', 1_000),
    ).rejects.toThrow('no credentials in this run');
  });
});
