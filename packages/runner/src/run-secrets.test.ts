import { REDACTED, RunSecrets } from './run-secrets';

describe('RunSecrets', () => {
  it('redacts every value it was given from text and data, longest first', async () => {
    const secrets = new RunSecrets(async ({ field }) =>
      field === 'password' ? 'hunter2-pass' : field === 'totp' ? 'hunter2' : 'alice',
    );
    expect(await secrets.credentialValue({ credential: 'crd_x', field: 'password' }, '#pw')).toBe('hunter2-pass');
    expect(await secrets.credentialValue({ credential: 'crd_x', field: 'totp' }, '#otp')).toBe('hunter2');
    // A username is shown back by the API: not a secret, left as it is.
    expect(await secrets.credentialValue({ credential: 'crd_x', field: 'username' }, '#user')).toBe('alice');
    expect(secrets.redact('alice')).toBe('alice');
    expect(secrets.redact('typed hunter2-pass then hunter2')).toBe(`typed ${REDACTED} then ${REDACTED}`);
    expect(secrets.redactData({ list: ['x hunter2'], hunter2: 1, n: 3, nothing: null })).toEqual({
      list: [`x ${REDACTED}`],
      [REDACTED]: 1,
      n: 3,
      nothing: null,
    });
  });

  it('leaves values too short to be secrets alone', () => {
    const secrets = new RunSecrets();
    secrets.add('abc');
    secrets.add('en-US', 16);
    secrets.add('a-long-session-token-value', 16);
    expect(secrets.redact('abc en-US a-long-session-token-value')).toBe(`abc en-US ${REDACTED}`);
  });

  it('redacts a value as a posted form or a query string carries it too', () => {
    const secrets = new RunSecrets();
    expect(secrets.empty).toBe(true);
    secrets.add('pa ss!w&rd');
    expect(secrets.empty).toBe(false);
    expect(secrets.redact('password=pa+ss%21w%26rd&next=1')).toBe(`password=${REDACTED}&next=1`);
    expect(secrets.redact('/login?p=pa%20ss!w%26rd')).toBe(`/login?p=${REDACTED}`);
  });

  it('masks the element even when the credential cannot be opened, and says why without a value', async () => {
    const secrets = new RunSecrets(async () => {
      throw new Error('credential crd_x has no password');
    });
    await expect(secrets.credentialValue({ credential: 'crd_x', field: 'password' }, '#pw')).rejects.toThrow(
      'has no password',
    );
    await expect(new RunSecrets().credentialValue({ credential: 'crd_y', field: 'totp' }, '#otp')).rejects.toThrow(
      'no credentials in this run',
    );
  });
});
