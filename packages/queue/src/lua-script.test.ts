import { redisSettingsFromUrl } from '@botfleet/core';
import { deletePrefixedKeys, testRedisUrl, uniqueQueuePrefix } from '@botfleet/testkit';
import { luaScript } from './lua-script';
import { closeRedis, createRedisConnection } from './redis-connection';

const redis = createRedisConnection(redisSettingsFromUrl(testRedisUrl()), 'worker');
const prefix = uniqueQueuePrefix('lua');
// A script of its own (a random constant), so no other suite has loaded it into Redis before.
const incrementBy = luaScript(`-- ${prefix}\nreturn redis.call('INCRBY', KEYS[1], ARGV[1])`);

afterAll(async () => {
  await deletePrefixedKeys(redis, prefix);
  await closeRedis(redis);
});

it('runs a script Redis has not seen (EVAL loads it) and then by its SHA', async () => {
  const key = `${prefix}:counter`;
  expect(await incrementBy.run(redis, [key], [2])).toBe(2);
  expect(await incrementBy.run(redis, [key], [3])).toBe(5);
  const sha = (await redis.script('LOAD', `-- ${prefix}\nreturn redis.call('INCRBY', KEYS[1], ARGV[1])`)) as string;
  expect((await redis.script('EXISTS', sha)) as number[]).toEqual([1]);
});

it('passes script errors through rather than retrying them', async () => {
  const failing = luaScript(`-- ${prefix}\nreturn redis.error_reply('boom')`);
  await expect(failing.run(redis, [], [])).rejects.toThrow('boom');
});
