import {
  assertCredentialOrigin,
  CREDENTIAL_ORIGIN_MISMATCH,
  normalizeCredentialOrigin,
  originOfUrl,
} from './credential';

describe('credential origins', () => {
  it('normalises an origin as URL.origin spells it', () => {
    expect(normalizeCredentialOrigin('HTTPS://Shop.Example', false)).toEqual({ origin: 'https://shop.example' });
    expect(normalizeCredentialOrigin('https://shop.example:443/', false)).toEqual({ origin: 'https://shop.example' });
    expect(normalizeCredentialOrigin('https://shop.example:8443', false)).toEqual({
      origin: 'https://shop.example:8443',
    });
    expect(normalizeCredentialOrigin('http://127.0.0.1:3000', true)).toEqual({ origin: 'http://127.0.0.1:3000' });
  });

  it.each([
    ['http://shop.example', 'http:// only while ALLOW_PRIVATE_NETWORK=true'],
    ['ftp://shop.example', 'must start with https://'],
    ['javascript:alert(1)', 'must start with https://'],
    ['shop.example', 'is not a URL'],
    ['https://shop.example/login', 'origin only'],
    ['https://shop.example?next=1', 'origin only'],
    ['https://shop.example/#top', 'origin only'],
    ['https://shop.example?', 'origin only'],
    ['https://user:pw@shop.example', 'user name or password'],
  ])('refuses %s', (text, problem) => {
    expect(normalizeCredentialOrigin(text, false).problem).toContain(problem);
  });

  it('matches a frame exactly on scheme, host and port', () => {
    const origins = ['https://shop.example'];
    expect(() =>
      assertCredentialOrigin('crd_1', origins, [originOfUrl('https://shop.example/login?x=1')]),
    ).not.toThrow();
    for (const url of [
      'http://shop.example/login',
      'https://shop.example:8443/login',
      'https://evil.shop.example/login',
      'https://shop.example.evil.test/',
      'about:blank',
      'data:text/html,x',
    ]) {
      expect(() => assertCredentialOrigin('crd_1', origins, [originOfUrl(url)])).toThrow(
        `${CREDENTIAL_ORIGIN_MISMATCH}: credential crd_1 fills only on https://shop.example`,
      );
    }
  });

  it('refuses a field whose frame sits inside a frame at another origin', () => {
    const origins = ['https://login.example'];
    expect(() => assertCredentialOrigin('crd_1', origins, ['https://login.example', 'https://evil.test'])).toThrow(
      "the field's frame is inside a frame at https://evil.test",
    );
    expect(() =>
      assertCredentialOrigin(
        'crd_1',
        [...origins, 'https://shop.example'],
        ['https://login.example', 'https://shop.example'],
      ),
    ).not.toThrow();
  });

  it('refuses every fill from a credential without origins, saying to set them', () => {
    expect(() => assertCredentialOrigin('crd_old', [], ['https://shop.example'])).toThrow(
      `${CREDENTIAL_ORIGIN_MISMATCH}: credential crd_old has no origins`,
    );
  });
});
