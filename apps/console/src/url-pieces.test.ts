import { urlPieces } from './url-pieces';

/* Where a long URL may wrap: between its parts, never inside the host name. */

describe('urlPieces', () => {
  it('cuts after each path slash and before the query and fragment, keeping the host whole', () => {
    expect(urlPieces('https://hooks.example-receiver.com/services/T000/B111?token=abc&retry=1#top')).toEqual([
      'https://hooks.example-receiver.com/',
      'services/',
      'T000/',
      'B111',
      '?token=abc&',
      'retry=1',
      '#top',
    ]);
  });

  it('keeps a bare host, and a URL without a scheme, in pieces that join back to it', () => {
    expect(urlPieces('https://example.com')).toEqual(['https://example.com']);
    expect(urlPieces('/relative/path/?q=1')).toEqual(['/', 'relative/', 'path/', '?q=1']);
    for (const url of ['http://a.b:8080/x//y?', 'mailto:someone@example.com', '']) {
      expect(urlPieces(url).join('')).toBe(url);
    }
  });
});
