import { createCipheriv, createDecipheriv, randomBytes, type DecipherGCM } from 'node:crypto';
import { Transform } from 'node:stream';

const VERSION = 'v1';
/** The first byte of sealed content (a stream), so its format too can change without a migration. */
const STREAM_VERSION = 1;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const STREAM_HEADER_BYTES = 1 + IV_BYTES;

/**
 * AES-256-GCM for secrets at rest (webhook secrets, JWT passwords, the artifacts of runs that held
 * secret values). The output is
 * `v1.<iv>.<tag>.<ciphertext>` in base64url, so the format can change without a migration.
 */
export interface SecretBox {
  encrypt(plaintext: string): string;
  decrypt(sealed: string): string;
  /**
   * Seals bytes of any size as they flow (an artifact of a run that held secrets, up to a
   * 100 MiB trace): a version byte, the IV, the ciphertext, then the GCM tag.
   */
  sealStream(): Transform;
  /**
   * Opens what sealStream wrote, as it flows. The tag comes last, so bytes are passed on before
   * they are authenticated; content that was altered or cut short fails the stream at its end.
   */
  openStream(): Transform;
}

export function createSecretBox(key: Buffer): SecretBox {
  if (key.length !== 32) throw new Error('SECRETS_KEY must decode to 32 bytes');
  return {
    encrypt(plaintext) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      const parts = [iv, cipher.getAuthTag(), ciphertext].map((b) => b.toString('base64url'));
      return [VERSION, ...parts].join('.');
    },
    decrypt(sealed) {
      const [version, iv, tag, ciphertext] = sealed.split('.');
      if (version !== VERSION || !iv || !tag || ciphertext === undefined) {
        throw new Error('Unrecognised sealed secret format');
      }
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString('utf8');
    },
    sealStream() {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      let headerSent = false;
      const header = () => {
        if (headerSent) return [];
        headerSent = true;
        return [Buffer.from([STREAM_VERSION]), iv];
      };
      return new Transform({
        transform(chunk: Buffer, _encoding, done) {
          done(null, Buffer.concat([...header(), cipher.update(chunk)]));
        },
        flush(done) {
          done(null, Buffer.concat([...header(), cipher.final(), cipher.getAuthTag()]));
        },
      });
    },
    openStream() {
      let header: Buffer = Buffer.alloc(0);
      let decipher: DecipherGCM | null = null;
      // The last TAG_BYTES seen so far may be the tag: held back until more arrives or the end.
      let held: Buffer = Buffer.alloc(0);
      return new Transform({
        transform(chunk: Buffer, _encoding, done) {
          try {
            let body = chunk;
            if (!decipher) {
              header = Buffer.concat([header, chunk]);
              if (header.length < STREAM_HEADER_BYTES) return done();
              if (header[0] !== STREAM_VERSION) throw new Error('Unrecognised sealed content format');
              decipher = createDecipheriv('aes-256-gcm', key, header.subarray(1, STREAM_HEADER_BYTES));
              body = header.subarray(STREAM_HEADER_BYTES);
            }
            const pending = Buffer.concat([held, body]);
            const cut = Math.max(0, pending.length - TAG_BYTES);
            held = pending.subarray(cut);
            done(null, decipher.update(pending.subarray(0, cut)));
          } catch (error) {
            done(error as Error);
          }
        },
        flush(done) {
          try {
            if (!decipher || held.length < TAG_BYTES) throw new Error('The sealed content is cut short');
            decipher.setAuthTag(held);
            done(null, decipher.final());
          } catch (error) {
            done(error as Error);
          }
        },
      });
    },
  };
}
