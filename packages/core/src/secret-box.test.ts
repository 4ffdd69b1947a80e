import { randomBytes } from 'node:crypto';
import { createSecretBox } from './secret-box';

describe('secret box', () => {
  const box = createSecretBox(randomBytes(32));

  it('round-trips and never repeats a ciphertext', () => {
    const a = box.encrypt('s3cret');
    const b = box.encrypt('s3cret');
    expect(a).not.toBe(b);
    expect(a).not.toContain('s3cret');
    expect(box.decrypt(a)).toBe('s3cret');
  });

  it('refuses tampered ciphertexts and other keys', () => {
    const sealed = box.encrypt('s3cret');
    const parts = sealed.split('.');
    const flipped = Buffer.from(parts[3]!, 'base64url');
    flipped[0] = flipped[0]! ^ 1;
    parts[3] = flipped.toString('base64url');
    expect(() => box.decrypt(parts.join('.'))).toThrow();
    expect(() => createSecretBox(randomBytes(32)).decrypt(sealed)).toThrow();
    expect(() => box.decrypt('garbage')).toThrow('Unrecognised');
  });

  it('requires a 32-byte key', () => {
    expect(() => createSecretBox(randomBytes(16))).toThrow('32 bytes');
  });
});
