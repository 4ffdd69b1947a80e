import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Pre-signed artifact URLs, like an object store's: anyone holding the URL may fetch the file
 * until it expires, without an API key; changing any part of it breaks the signature. The API
 * signs them for its responses, the worker for the screenshot of an `execution.failed` event.
 */
export interface ArtifactUrlSigner {
  sign(artifactId: string, now?: number): string;
  verify(artifactId: string, expires: number, signature: string, now?: number): boolean;
}

/** What signing needs: the key (derived from SECRETS_KEY), PUBLIC_BASE_URL and the URL's lifetime. */
export interface ArtifactUrlSettings {
  signingKey: Buffer;
  baseUrl: string;
  ttlSeconds: number;
}

export function createArtifactUrlSigner(key: Buffer, baseUrl: string, ttlSeconds: number): ArtifactUrlSigner {
  const mac = (artifactId: string, expires: number) =>
    createHmac('sha256', key).update(`${artifactId}.${expires}`).digest('base64url');
  const base = baseUrl.replace(/\/+$/, '');
  return {
    sign(artifactId, now = Date.now()) {
      const expires = Math.floor(now / 1000) + ttlSeconds;
      return `${base}/api/v1/artifacts/${encodeURIComponent(artifactId)}?expires=${expires}&signature=${mac(artifactId, expires)}`;
    },
    verify(artifactId, expires, signature, now = Date.now()) {
      if (expires * 1000 < now) return false;
      const expected = Buffer.from(mac(artifactId, expires));
      const given = Buffer.from(signature);
      return given.length === expected.length && timingSafeEqual(given, expected);
    },
  };
}
