import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { IncomingMessage } from 'node:http';
import { startFixtureServer, type FixtureHandler, type FixtureRoute, type FixtureServer } from './fixture-server';

/*
 * Chrome DevTools Recorder exports kept as test fixtures (test/fixtures/recordings), and loopback
 * sites with the structure each was recorded against: the recorded sites cannot be reached from
 * test machines, so a test serves these and the recording's URLs are rewritten to the server.
 * Selectors stay as recorded. Each site records what was done to it on the page, for an extract
 * step to read afterwards.
 */

/** Where the recording fixtures live (the repository's test/fixtures/recordings). */
export const RECORDINGS_DIR = join(__dirname, '..', '..', '..', 'test', 'fixtures', 'recordings');

export type RecordingFixture =
  | 'online-boutique-checkout'
  | 'tableau-crosstab-download'
  | 'contact-form'
  | 'search-with-select'
  | 'payment-iframes'
  | 'shadow-dom-shop'
  | 'relabelled-site';

/** A recording fixture as exported by Chrome, parsed, URLs untouched. */
export function readRecordingFixture(name: RecordingFixture | string, dir = RECORDINGS_DIR): Record<string, unknown> {
  return JSON.parse(readFileSync(join(dir, `${name}.json`), 'utf8')) as Record<string, unknown>;
}

/** The recording with every http(s) origin in it pointing at `origin` instead. */
export function rewriteOrigins<T>(recording: T, origin: string): T {
  return JSON.parse(JSON.stringify(recording).replace(/https?:\/\/[a-z0-9.-]+(:\d+)?/gi, origin)) as T;
}

export interface RecordingSite {
  server: FixtureServer;
  /** The recording, its URLs rewritten to the server. */
  recording: Record<string, unknown>;
  /** Extract steps that read what the recording did to the site, and what they should read. */
  readBack: { steps: object[]; expected: Record<string, unknown> };
  close(): Promise<void>;
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function formFields(body: string): Record<string, string> {
  return Object.fromEntries(new URLSearchParams(body));
}

function html(render: (req: IncomingMessage, body: string) => string): FixtureHandler {
  return (req, res, body) => void res.writeHead(200, { 'content-type': 'text/html' }).end(render(req, body));
}

interface SiteSpec {
  routes: () => Record<string, FixtureRoute>;
  readBack: RecordingSite['readBack'];
}

const SITES: Partial<Record<RecordingFixture, SiteSpec>> = {
  'online-boutique-checkout': {
    routes() {
      const cart: string[] = [];
      return {
        '/': `<!doctype html><title>Online Boutique</title><body><main><div><div>
          <div>Hot products</div>
          <div>
            <div>Sale</div>
            <div><div><a href="/product/66VCHSJNUP"><div style="width: 300px; height: 200px">Sunglasses</div></a></div></div>
          </div></div></div></main></body>`,
        '/product/66VCHSJNUP': `<!doctype html><title>Sunglasses</title><body><main><div><div>
          <div>image</div>
          <div><form method="POST" action="/cart"><input type="hidden" name="product_id" value="66VCHSJNUP">
            <div><button type="submit" style="text-transform: uppercase; padding: 12px 24px">Add to Cart</button></div></form></div>
          </div></div></main></body>`,
        '/cart': html((req, body) => {
          const product = formFields(body).product_id;
          if (req.method === 'POST' && product) cart.push(product);
          return `<!doctype html><title>Cart</title><body><main><div><div>
            <div class="py-3"><ul id="items">${cart.map((p) => `<li>${escapeHtml(p)}</li>`).join('')}</ul></div>
            <div>
              <form method="POST" action="/cart/checkout"><div></div><div></div><div></div>
              <div class="py-3"><button type="submit" style="text-transform: uppercase; padding: 12px 24px">Place order</button></div></form>
            </div></div></div></main></body>`;
        }),
        '/cart/checkout': html(
          () =>
            `<!doctype html><title>Order complete</title><h1 id="confirmation">Order placed: ${escapeHtml(cart.join(', '))}</h1>`,
        ),
      };
    },
    readBack: {
      steps: [{ action: 'extract', name: 'confirmation', selector: '#confirmation' }],
      expected: { confirmation: 'Order placed: 66VCHSJNUP' },
    },
  },
  'contact-form': {
    routes: () => ({
      '/contact': `<!doctype html><title>Contact us</title><body><main><form method="POST" action="/contact/sent">
        <label>Full name <input id="name" name="name"></label>
        <label for="email">Email</label><input id="email" name="email" type="email">
        <label for="message">Message</label><textarea id="message" name="message"></textarea>
        <label><input id="subscribe" name="subscribe" type="checkbox" value="yes"> Subscribe to the newsletter</label>
        <button type="submit">Send message</button>
      </form></main></body>`,
      '/contact/sent': html((_req, body) => {
        const sent = formFields(body);
        return `<!doctype html><title>Thank you</title><dl>
          <dd id="sent-name">${escapeHtml(sent.name ?? '')}</dd><dd id="sent-email">${escapeHtml(sent.email ?? '')}</dd>
          <dd id="sent-message">${escapeHtml(sent.message ?? '')}</dd><dd id="sent-subscribe">${escapeHtml(sent.subscribe ?? 'no')}</dd>
        </dl>`;
      }),
    }),
    readBack: {
      steps: [
        { action: 'extract', name: 'name', selector: '#sent-name' },
        { action: 'extract', name: 'email', selector: '#sent-email' },
        { action: 'extract', name: 'message', selector: '#sent-message' },
        { action: 'extract', name: 'subscribe', selector: '#sent-subscribe' },
      ],
      expected: {
        name: 'Ada Lovelace',
        email: 'ada@example.com',
        message: 'Please send the analytical engine notes.',
        subscribe: 'yes',
      },
    },
  },
  'search-with-select': {
    routes: () => ({
      '/search': `<!doctype html><title>Search</title><body><form action="/results" method="GET">
        <label for="category">Category</label>
        <select id="category" name="category"><option value="all">All</option>
          <option value="science-fiction">Science fiction</option><option value="history">History</option></select>
        <label for="q">Search terms</label><input id="q" name="q">
      </form></body>`,
      '/results': html((req) => {
        const query = new URL(req.url ?? '/', 'http://x').searchParams;
        return `<!doctype html><title>Results</title><body>
          <p id="summary">${escapeHtml(`${query.get('category') ?? ''}: ${query.get('q') ?? ''}`)}</p>
          <ol>
            <li class="result"><h2 ondblclick="document.getElementById('picked').textContent = this.textContent">Dune</h2></li>
            <li class="result"><h2>Dune Messiah</h2></li>
          </ol>
          <p id="picked">none</p><p id="scrolled">0</p><div style="height: 3000px"></div>
          <script>
            // The furthest the page was scrolled (a later click scrolls its element back into view).
            let furthest = 0;
            addEventListener('scroll', () => {
              furthest = Math.max(furthest, scrollY);
              document.getElementById('scrolled').textContent = String(furthest);
            });
          </script>
        </body>`;
      }),
    }),
    readBack: {
      steps: [
        { action: 'extract', name: 'summary', selector: '#summary' },
        { action: 'extract', name: 'picked', selector: '#picked' },
        { action: 'extract', name: 'scrolled', selector: '#scrolled' },
      ],
      expected: { summary: 'science-fiction: dune', picked: 'Dune', scrolled: '400' },
    },
  },
  'payment-iframes': {
    routes: () => ({
      '/checkout': `<!doctype html><title>Checkout</title><body><h1>Checkout</h1>
        <p id="status" data-state="pending">Waiting for payment</p>
        <iframe src="/card-frame" width="600" height="320"></iframe></body>`,
      '/card-frame': `<!doctype html><body><label for="card">Card number</label><input id="card">
        <iframe src="/cvc-frame" width="300" height="90"></iframe>
        <button id="pay">Pay now</button>
        <script>document.getElementById('pay').addEventListener('click', () => {
          const cvc = frames[0].document.getElementById('cvc').value;
          const status = parent.document.getElementById('status');
          status.textContent = 'Paid with card ending ' + document.getElementById('card').value.slice(-4) + ', cvc of ' + cvc.length + ' digits';
          status.dataset.state = 'paid';
        });</script></body>`,
      '/cvc-frame': `<!doctype html><body><label for="cvc">Security code</label><input id="cvc"></body>`,
    }),
    readBack: {
      steps: [{ action: 'extract', name: 'status', selector: '#status' }],
      expected: { status: 'Paid with card ending 4242, cvc of 3 digits' },
    },
  },
  'shadow-dom-shop': {
    routes: () => ({
      '/shop': `<!doctype html><title>Shop</title><body><shop-app></shop-app><script>
        customElements.define('cart-badge', class extends HTMLElement {
          constructor() { super(); this.attachShadow({ mode: 'open' }).innerHTML = 'Cart: <span class="count" data-count="0">0</span>'; }
          show(n) { const count = this.shadowRoot.querySelector('.count'); count.textContent = String(n); count.dataset.count = String(n); }
        });
        customElements.define('product-card', class extends HTMLElement {
          connectedCallback() {
            const name = this.getAttribute('name');
            const root = this.attachShadow({ mode: 'open' });
            root.innerHTML = '<h3>' + name + '</h3><label>Quantity of ' + name + ' <input class="qty" type="number" value="1"></label>' +
              '<button class="add" aria-label="Add ' + name + ' to cart">Add</button>';
            root.querySelector('.add').addEventListener('click', () => this.dispatchEvent(new CustomEvent('add', {
              bubbles: true, composed: true, detail: { name, qty: Number(root.querySelector('.qty').value) } })));
          }
        });
        customElements.define('shop-app', class extends HTMLElement {
          connectedCallback() {
            let total = 0;
            const root = this.attachShadow({ mode: 'open' });
            root.innerHTML = '<cart-badge></cart-badge><product-card name="Chair"></product-card><product-card name="Lamp"></product-card><p class="last"></p>';
            root.addEventListener('add', (event) => {
              total += event.detail.qty;
              root.querySelector('cart-badge').show(total);
              root.querySelector('.last').textContent = 'Added ' + event.detail.qty + ' x ' + event.detail.name;
            });
          }
        });
      </script></body>`,
    }),
    readBack: {
      steps: [
        { action: 'extract', name: 'last', selector: 'p.last' },
        { action: 'extract', name: 'count', selector: 'span.count' },
      ],
      expected: { last: 'Added 3 x Lamp', count: '3' },
    },
  },
  'relabelled-site': {
    routes: () => ({
      '/': `<!doctype html><title>News</title><body>
        <aside id="consent"><p>We use cookies.</p>
          <button id="accept" onclick="document.cookie = 'consent=yes; path=/'; document.getElementById('consent').remove()">Accept all cookies</button></aside>
        <header class="banner"><a href="#signup" role="button" onclick="document.getElementById('signup').hidden = false; return false;">Get the newsletter</a></header>
        <section id="signup" hidden><form id="newsletter" onsubmit="event.preventDefault(); document.getElementById('done').textContent = 'Subscribed ' + document.getElementById('addr').value;">
          <label for="addr">Email address</label><input id="addr" type="email"><button type="submit">Subscribe</button></form></section>
        <p id="done">not yet</p></body>`,
    }),
    readBack: {
      steps: [{ action: 'extract', name: 'done', selector: '#done' }],
      expected: { done: 'Subscribed reader@example.com' },
    },
  },
};

/** The recording fixtures that have a site to run against. */
export const RUNNABLE_RECORDINGS = Object.keys(SITES) as RecordingFixture[];

/** Serves the site `name` was recorded against, on loopback; the recording's URLs point at it. */
export async function startRecordingSite(name: RecordingFixture): Promise<RecordingSite> {
  const spec = SITES[name];
  if (!spec) throw new Error(`no site for the recording ${name}`);
  const server = await startFixtureServer(spec.routes());
  return {
    server,
    recording: rewriteOrigins(readRecordingFixture(name), server.origin),
    readBack: spec.readBack,
    close: () => server.close(),
  };
}
