import { createSecretBox } from '@botfleet/core';
import type { DeliveryForAttempt } from '@botfleet/db';
import { randomBytes } from 'node:crypto';
import { createCredentialOpener, UnreadableSecretError } from './open-credentials';

const box = createSecretBox(randomBytes(32));

function claimed(botId: string, webhookSecretEnc: string | null, webhookPasswordEnc: string | null = null) {
  return { botId, webhookSecretEnc, webhookPasswordEnc } as DeliveryForAttempt;
}

describe('credential opener', () => {
  it('opens a bot’s sealed secret once, and again as soon as the claim reads another ciphertext', () => {
    let decrypts = 0;
    const counting = { ...box, decrypt: (sealed: string) => (decrypts++, box.decrypt(sealed)) };
    const open = createCredentialOpener(counting);
    const first = box.encrypt('first');
    expect(open(claimed('bot_a', first))).toEqual({ secret: 'first', password: undefined });
    expect(open(claimed('bot_a', first))).toEqual({ secret: 'first', password: undefined });
    expect(decrypts).toBe(1);
    // A PUT seals again (a fresh nonce), even for the same plaintext: never the cached one after it.
    expect(open(claimed('bot_a', box.encrypt('second')))).toEqual({ secret: 'second', password: undefined });
    expect(open(claimed('bot_a', null, box.encrypt('pw')))).toEqual({ secret: undefined, password: 'pw' });
    expect(open(claimed('bot_b', first))).toEqual({ secret: 'first', password: undefined });
    expect(decrypts).toBe(4);
  });

  it('keeps at most maxBots bots (the one opened longest ago goes), and never caches a secret it cannot open', () => {
    let decrypts = 0;
    const open = createCredentialOpener({ ...box, decrypt: (sealed: string) => (decrypts++, box.decrypt(sealed)) }, 2);
    const sealed = box.encrypt('s');
    for (const bot of ['bot_a', 'bot_b', 'bot_c']) open(claimed(bot, sealed));
    expect(decrypts).toBe(3);
    open(claimed('bot_c', sealed));
    expect(decrypts).toBe(3);
    open(claimed('bot_a', sealed));
    expect(decrypts).toBe(4);
    expect(() => open(claimed('bot_d', 'v1.not-a-ciphertext'))).toThrow(UnreadableSecretError);
    expect(() => open(claimed('bot_d', 'v1.not-a-ciphertext'))).toThrow(UnreadableSecretError);
    expect(decrypts).toBe(6);
  });
});
