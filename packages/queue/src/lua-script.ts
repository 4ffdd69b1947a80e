import { createHash } from 'node:crypto';
import type { RedisConnection } from './redis-connection';

/** A Lua script run by its SHA (EVALSHA): the text crosses the wire once per Redis, not per call. */
export interface LuaScript {
  run(redis: RedisConnection, keys: string[], args: Array<string | number>): Promise<unknown>;
}

export function luaScript(text: string): LuaScript {
  const sha = createHash('sha1').update(text).digest('hex');
  return {
    async run(redis, keys, args) {
      try {
        return await redis.evalsha(sha, keys.length, ...keys, ...args);
      } catch (err) {
        // Redis has not seen the script yet (or restarted, or flushed its cache): EVAL loads it.
        if (!(err instanceof Error) || !err.message.startsWith('NOSCRIPT')) throw err;
        return redis.eval(text, keys.length, ...keys, ...args);
      }
    },
  };
}
