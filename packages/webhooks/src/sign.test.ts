import { createHmac, randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { signPayload } from './sign';

const id = 'msg_2KWPBgLlAfxdpx2AI54pPJ85f4W';
const body = '{"items":[{"name":"café ☕"}]}';

function headersFor(signature: string, timestamp: number): Record<string, string> {
  return { 'webhook-id': id, 'webhook-timestamp': String(timestamp), 'webhook-signature': signature };
}

describe('signPayload', () => {
  const timestamp = Math.floor(Date.now() / 1000);

  it('produces a signature the standardwebhooks library accepts for a whsec_ secret', () => {
    const secret = `whsec_${randomBytes(24).toString('base64')}`;
    const signature = signPayload({ id, timestamp, body, secret });
    expect(signature).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    expect(new Webhook(secret).verify(body, headersFor(signature, timestamp))).toEqual(JSON.parse(body));
  });

  it('keys a plain secret with its UTF-8 bytes', () => {
    const secret = 'my shared secret ✓';
    const signature = signPayload({ id, timestamp, body, secret });
    const expected = createHmac('sha256', Buffer.from(secret, 'utf8'))
      .update(`${id}.${timestamp}.${body}`)
      .digest('base64');
    expect(signature).toBe(`v1,${expected}`);
    // standardwebhooks takes a raw key as base64, which makes it an independent check too.
    const verifier = new Webhook(Buffer.from(secret, 'utf8').toString('base64'));
    expect(() => verifier.verify(body, headersFor(signature, timestamp))).not.toThrow();
  });

  it('fails verification for a tampered body, id or timestamp', () => {
    const secret = `whsec_${randomBytes(32).toString('base64')}`;
    const signature = signPayload({ id, timestamp, body, secret });
    const verifier = new Webhook(secret);
    expect(() => verifier.verify(body.replace('café', 'cafe'), headersFor(signature, timestamp))).toThrow();
    expect(() => verifier.verify(body, { ...headersFor(signature, timestamp), 'webhook-id': 'msg_other' })).toThrow();
    expect(() => verifier.verify(body, headersFor(signature, timestamp + 1))).toThrow();
  });

  it('rejects an empty secret as a programming error', () => {
    expect(() => signPayload({ id, timestamp, body, secret: '' })).toThrow(TypeError);
  });
});
