import { maskWebhookUrl, WebhookUrlSchema, webhookUrlAsSeenBy } from './webhook-url';

describe('WebhookUrlSchema', () => {
  it('takes absolute http(s) URLs without user-info', () => {
    expect(WebhookUrlSchema.safeParse('https://hooks.example/in?token=x').success).toBe(true);
    for (const refused of ['https://u:p@hooks.example/', 'https://u@hooks.example/', 'http://:p@hooks.example/']) {
      const result = WebhookUrlSchema.safeParse(refused);
      expect(result.success).toBe(false);
      expect(result.error?.issues[0]?.message).toBe('must not carry user:password@ (set webhook.auth to authenticate)');
    }
    expect(WebhookUrlSchema.safeParse('ftp://hooks.example/').error?.issues[0]?.message).toBe(
      'must be an absolute http(s) URL',
    );
  });
});

describe('maskWebhookUrl', () => {
  it.each([
    ['https://hooks.example/in', 'https://hooks.example/in'],
    ['https://hooks.example:8443/a/b?token=abc', 'https://hooks.example:8443/a/b?token=********'],
    ['https://hooks.example/?a=1&b=&c=x%3Dy', 'https://hooks.example/?a=********&b=********&c=********'],
    ['https://hooks.example/?s3cr3t', 'https://hooks.example/?********'],
    ['https://hooks.example/#access_token=abc', 'https://hooks.example/#********'],
    ['https://user:pass@hooks.example/', 'https://********@hooks.example/'],
    ['not a url', '********'],
  ])('%s -> %s', (url, masked) => {
    expect(maskWebhookUrl(url)).toBe(masked);
  });

  it('masks only for read keys', () => {
    const url = 'https://hooks.example/?token=abc';
    expect(webhookUrlAsSeenBy(url, 'read')).toBe('https://hooks.example/?token=********');
    expect(webhookUrlAsSeenBy(url, 'write')).toBe(url);
    expect(webhookUrlAsSeenBy(url, 'admin')).toBe(url);
  });
});
