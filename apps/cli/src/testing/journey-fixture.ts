import { createApiHarness, type ApiHarness, type TestOrg } from '@botfleet/api/testing';
import type { RoleHandle } from '@botfleet/core';
import { SHOP_PAGE } from '@botfleet/runner/testing';
import { startFixtureServer, startReceiver, type FixtureServer, type TestReceiver } from '@botfleet/testkit';
import { startTestDelivery, startTestWorker } from '@botfleet/worker/testing';
import type { Step } from '@botfleet/sdk';

/**
 * Everything a client's journey needs, for real: the API listening on a port of 127.0.0.1, a worker
 * (Chromium) and a delivery role on its queues, a shop page to scrape and a webhook receiver.
 */
export interface JourneyFixture {
  api: ApiHarness;
  org: TestOrg;
  /** `http://127.0.0.1:<port>`: what BOTFLEET_URL would be. */
  baseUrl: string;
  site: FixtureServer;
  receiver: TestReceiver;
  close(): Promise<void>;
}

export async function startJourneyFixture(): Promise<JourneyFixture> {
  const api = await createApiHarness();
  const org = await api.newOrg();
  const { port } = await api.listen();
  const roles: RoleHandle[] = [await startTestWorker(api, org), await startTestDelivery(api)];
  const site = await startFixtureServer({ '/': SHOP_PAGE });
  const receiver = await startReceiver();
  return {
    api,
    org,
    baseUrl: `http://127.0.0.1:${port}`,
    site,
    receiver,
    async close() {
      for (const role of roles.reverse()) await role.stop();
      await Promise.all([site.close(), receiver.close()]);
      await api.close();
    },
  };
}

/** Steps that extract from SHOP_PAGE: its title, and each product's name and price. */
export const SHOP_STEPS: Step[] = [
  { action: 'extract', name: 'title', selector: '#title' },
  {
    action: 'extract',
    name: 'products',
    selector: '.product',
    multiple: true,
    fields: { name: { selector: '.name' }, price: { selector: '.price' } },
  },
];

/** What SHOP_STEPS extract. */
export const SHOP_DATA = {
  title: 'Products',
  products: [
    { name: 'Apple', price: '1.00' },
    { name: 'Banana', price: '0.50' },
    { name: 'Cherry', price: null },
  ],
};
