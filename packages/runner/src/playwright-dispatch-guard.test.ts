import { useBrowserFixture } from './testing';

/*
 * The guard on the connection of a browser the host launched (browser-host.ts installs it). The
 * race it covers (an answer sent after the close that disposed what it names) cannot be timed
 * from outside, so the answer is handed to the client's dispatcher directly, for a call the test
 * registers, as Playwright's transport hands it over.
 */

interface PendingCall {
  resolve(value: unknown): void;
  reject(error: Error): void;
  type: string;
  method: string;
}
interface ClientConnection {
  dispatch(message: object): void;
  _callbacks: Map<string, PendingCall>;
}

const fixture = useBrowserFixture();

async function connectionOfHostBrowser(): Promise<ClientConnection> {
  const browser = await fixture.host.getBrowser();
  return (browser as unknown as { _connection: ClientConnection })._connection;
}

/** A page.goto the client waits on, as Playwright registers it (Frame.goto). */
function pendingGoto(connection: ClientConnection, id: string): Promise<unknown> {
  return new Promise((resolve, reject) =>
    connection._callbacks.set(id, { resolve, reject, type: 'Frame', method: 'goto' }),
  );
}

it('rejects a call whose answer names a disposed object, instead of throwing out of the dispatcher', async () => {
  const connection = await connectionOfHostBrowser();
  const call = pendingGoto(connection, 'guard-test@1');
  expect(() =>
    connection.dispatch({ id: 'guard-test@1', result: { response: { guid: 'response@disposed-with-its-page' } } }),
  ).not.toThrow();
  await expect(call).rejects.toThrow(
    /Target page, context or browser has been closed.*response@disposed-with-its-page/,
  );
  expect(connection._callbacks.has('guard-test@1')).toBe(false);
});

it('still throws any other dispatch error, and answers calls as before', async () => {
  const connection = await connectionOfHostBrowser();
  expect(() => connection.dispatch({ id: 'guard-test@unknown', result: {} })).toThrow(/Cannot find command to respond/);

  const browser = await fixture.host.getBrowser();
  const page = await browser.newPage();
  try {
    expect(await page.evaluate(() => 6 * 7)).toBe(42);
  } finally {
    await page.close();
  }
});
