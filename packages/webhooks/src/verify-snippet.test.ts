import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { signPayload } from './sign';

// The "Verifying signatures" snippet in docs/webhooks.md is what receivers copy, so it is tested against the
// signer itself. The document is this repository's own file, so evaluating the block is safe.
type VerifyWebhook = (
  secret: string,
  headers: Record<string, string | undefined>,
  body: string | Buffer,
  toleranceSeconds?: number,
) => boolean;

const DOCUMENT = path.join(__dirname, '..', '..', '..', 'docs', 'webhooks.md');
const BLOCK = /```js\n(\/\/ verify-webhook\.js\n[\s\S]*?)```/;

function loadSnippet(): VerifyWebhook {
  const match = BLOCK.exec(readFileSync(DOCUMENT, 'utf8'));
  if (!match) throw new Error('docs/webhooks.md has no ```js block starting with // verify-webhook.js');
  const module = { exports: {} as { verifyWebhook?: VerifyWebhook } };
  new Function('require', 'module', 'exports', match[1]!)(require, module, module.exports);
  if (typeof module.exports.verifyWebhook !== 'function') throw new Error('the snippet must export verifyWebhook');
  return module.exports.verifyWebhook;
}

const verifyWebhook = loadSnippet();
const id = 'dlv_01JD0000000000000000000000';
const body = '{"title":"café ☕","items":[{"name":"a"}]}';
const now = () => Math.floor(Date.now() / 1000);

function signedHeaders(secret: string, timestamp = now(), payload = body): Record<string, string> {
  return {
    'webhook-id': id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': signPayload({ id, timestamp, body: payload, secret }),
  };
}

describe('docs/webhooks.md verify-webhook.js snippet', () => {
  const plain = 'a plain shared secret ✓';
  const whsec = `whsec_${randomBytes(32).toString('base64')}`;

  it('accepts a signature made with a plain secret', () => {
    expect(verifyWebhook(plain, signedHeaders(plain), body)).toBe(true);
  });

  it('accepts a signature made with a whsec_ secret', () => {
    expect(verifyWebhook(whsec, signedHeaders(whsec), body)).toBe(true);
  });

  it('accepts the raw body as a Buffer', () => {
    expect(verifyWebhook(whsec, signedHeaders(whsec), Buffer.from(body, 'utf8'))).toBe(true);
  });

  it('accepts a header holding several space-separated signatures when one matches', () => {
    const headers = signedHeaders(plain);
    const other = signPayload({ id, timestamp: Number(headers['webhook-timestamp']), body, secret: 'an old secret' });
    headers['webhook-signature'] = `${other} v1a,ignored ${headers['webhook-signature']}`;
    expect(verifyWebhook(plain, headers, body)).toBe(true);
  });

  it('rejects a tampered body', () => {
    expect(verifyWebhook(plain, signedHeaders(plain), body.replace('café', 'cafe'))).toBe(false);
    expect(verifyWebhook(whsec, signedHeaders(whsec), `${body} `)).toBe(false);
  });

  it('rejects a tampered id or timestamp', () => {
    const headers = signedHeaders(plain);
    expect(verifyWebhook(plain, { ...headers, 'webhook-id': 'dlv_other' }, body)).toBe(false);
    expect(
      verifyWebhook(plain, { ...headers, 'webhook-timestamp': String(Number(headers['webhook-timestamp']) + 1) }, body),
    ).toBe(false);
  });

  it('rejects a correctly signed but old timestamp, and one too far in the future', () => {
    expect(verifyWebhook(plain, signedHeaders(plain, now() - 3600), body)).toBe(false);
    expect(verifyWebhook(plain, signedHeaders(plain, now() + 3600), body)).toBe(false);
    // Within a custom tolerance the same old signature is fine.
    expect(verifyWebhook(plain, signedHeaders(plain, now() - 3600), body, 7200)).toBe(true);
  });

  it('rejects the wrong secret and missing headers', () => {
    expect(verifyWebhook('another secret', signedHeaders(plain), body)).toBe(false);
    expect(verifyWebhook(`whsec_${randomBytes(32).toString('base64')}`, signedHeaders(whsec), body)).toBe(false);
    const { 'webhook-signature': _omitted, ...unsigned } = signedHeaders(plain);
    expect(verifyWebhook(plain, unsigned, body)).toBe(false);
  });
});
