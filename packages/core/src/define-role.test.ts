import { defineRole } from './define-role';

it('starts with the options, names the handle and keeps the role’s extras', async () => {
  const role = defineRole({
    name: 'api',
    start: async (options: { port: number }) => ({ port: options.port + 1, stop: async () => undefined }),
  });
  expect(role.name).toBe('api');
  const handle = await role.start({ port: 41 });
  expect(handle.name).toBe('api');
  expect(handle.port).toBe(42);
});

it('stops once however often stop is called, and every caller waits for that stop', async () => {
  let stops = 0;
  let finish: () => void = () => undefined;
  const role = defineRole({
    name: 'worker',
    start: async () => ({
      stop: () => {
        stops++;
        return new Promise<void>((resolve) => (finish = resolve));
      },
    }),
  });
  const handle = await role.start(undefined);
  const first = handle.stop();
  const second = handle.stop();
  expect(second).toBe(first);
  expect(stops).toBe(1);
  let done = false;
  void second.then(() => (done = true));
  await new Promise((resolve) => setImmediate(resolve));
  expect(done).toBe(false);
  finish();
  await first;
  await handle.stop();
  expect(stops).toBe(1);
});
