import { CONFIG_DEFAULTS } from '@botfleet/core';
import { apiProcessEnv, restartDelayMs, STABLE_LIFE_MS } from './api-processes';

describe('restartDelayMs', () => {
  it('replaces a process that had been up a while at once', () => {
    expect(restartDelayMs(0, STABLE_LIFE_MS)).toBe(0);
    expect(restartDelayMs(30_000, STABLE_LIFE_MS + 1)).toBe(0);
  });

  it('backs off a process that keeps dying on start, doubling up to 30 s', () => {
    const delays: number[] = [];
    let delay = 0;
    for (let i = 0; i < 9; i++) delays.push((delay = restartDelayMs(delay, 1_000)));
    expect(delays).toEqual([500, 1_000, 2_000, 4_000, 8_000, 16_000, 30_000, 30_000, 30_000]);
  });
});

describe('apiProcessEnv', () => {
  it('runs the api role only, with no ops server or forking of its own, and ends within the primary’s drain', () => {
    const env = apiProcessEnv({ ...CONFIG_DEFAULTS, API_PROCESSES: 4, OPS_PORT: 9464 }, 20_000);
    expect(env).toMatchObject({ ROLES: ['api'], OPS_PORT: 0, API_PROCESSES: 1, SHUTDOWN_GRACE_SECONDS: 20 });
    expect(apiProcessEnv(CONFIG_DEFAULTS, 667).SHUTDOWN_GRACE_SECONDS).toBe(1);
  });
});
