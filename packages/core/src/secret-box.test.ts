import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import { createSecretBox } from './secret-box';

/** Pushes `input` through `transform` in chunks of `chunkBytes`, as a file or a download arrives. */
const through = (transform: NodeJS.ReadWriteStream, input: Buffer, chunkBytes: number) => {
  const chunks: Buffer[] = [];
  for (let at = 0; at < input.length; at += chunkBytes) chunks.push(input.subarray(at, at + chunkBytes));
  return buffer(Readable.from(chunks).pipe(transform));
};

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

  it('seals and opens content as it streams, whatever the chunks', async () => {
    const content = Buffer.concat([Buffer.from('{"log":{"entries":[]}} '), randomBytes(200_000)]);
    const sealed = await through(box.sealStream(), content, 65_536);
    expect(sealed.includes(content.subarray(0, 22))).toBe(false);
    expect(sealed.length).toBe(content.length + 1 + 12 + 16);
    for (const chunkBytes of [1, 7, 29, 65_536]) {
      expect(await through(box.openStream(), sealed.subarray(0, 5_000), chunkBytes).catch(() => 'refused')).toBe(
        'refused',
      );
    }
    for (const chunkBytes of [13, 1000, 1_000_000]) {
      expect((await through(box.openStream(), sealed, chunkBytes)).equals(content)).toBe(true);
    }
    expect((await through(box.openStream(), await through(box.sealStream(), Buffer.alloc(0), 1), 1)).length).toBe(0);
  });

  it('refuses sealed content that was altered, cut short, or sealed with another key', async () => {
    const sealed = await through(box.sealStream(), Buffer.from('a HAR of a run that held a password'), 1024);
    const flipped = Buffer.from(sealed);
    flipped[20] = flipped[20]! ^ 1;
    const open = (bytes: Buffer, opener = box) => through(opener.openStream(), bytes, 8);
    await expect(open(flipped)).rejects.toThrow();
    await expect(open(sealed.subarray(0, sealed.length - 1))).rejects.toThrow();
    await expect(open(sealed.subarray(0, 10))).rejects.toThrow('cut short');
    await expect(open(sealed, createSecretBox(randomBytes(32)))).rejects.toThrow();
    await expect(open(Buffer.concat([Buffer.from([9]), sealed.subarray(1)]))).rejects.toThrow('Unrecognised');
  });

  it('requires a 32-byte key', () => {
    expect(() => createSecretBox(randomBytes(16))).toThrow('32 bytes');
  });
});
