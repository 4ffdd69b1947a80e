import { framePrefix } from '@botfleet/core';
import { useBrowserFixture } from './testing';

/*
 * botfleet_child_frame (child-frame-engine.ts) numbers child frames as Chrome's frame tree does:
 * in attach order, the order a recording's `frame` path counts, whatever the document order.
 */
const FRAME = (name: string) => `<!doctype html><p id="name">${name}</p>`;
const PAGE = `<!doctype html>
<div id="slot"></div>
<script>
  const add = (name, parent) => {
    const frame = document.createElement('iframe');
    frame.src = '/frame-' + name;
    parent.append(frame);
  };
  add('attached-first', document.body);
  add('attached-second', document.getElementById('slot'));
  const host = document.createElement('div');
  document.body.append(host);
  add('in-a-shadow-root', host.attachShadow({ mode: 'open' }));
  add('nested', document.body);
  // A page cannot steer the engine by replacing window.frames: the engine runs in its own world.
  window.frames = [];
</script>`;

describe('the child frame selector engine', () => {
  const fixture = useBrowserFixture({
    routes: {
      '/frames': PAGE,
      '/frame-attached-first': FRAME('attached-first'),
      '/frame-attached-second': FRAME('attached-second'),
      '/frame-in-a-shadow-root': FRAME('in-a-shadow-root'),
      '/frame-nested': `<!doctype html><p id="name">nested</p><iframe src="/frame-attached-first"></iframe>`,
    },
  });

  async function nameIn(frame: number[]): Promise<string | null> {
    const page = await fixture.newPage('/frames');
    await page.waitForFunction(() => document.querySelectorAll('iframe').length === 3);
    return page.locator(`${framePrefix(frame)}#name`).textContent({ timeout: 10_000 });
  }

  it('counts frames in the order they were attached, not in document order', async () => {
    expect(await nameIn([0])).toBe('attached-first');
    expect(await nameIn([1])).toBe('attached-second');
    expect(await nameIn([2])).toBe('nested');
    expect(await nameIn([2, 0])).toBe('attached-first');
  });

  it('numbers frames inside shadow roots after the others', async () => {
    expect(await nameIn([3])).toBe('in-a-shadow-root');
  });

  it('matches nothing for an index past the last frame or one that is not a number', async () => {
    const page = await fixture.newPage('/frames');
    await page.waitForFunction(() => document.querySelectorAll('iframe').length === 3);
    for (const body of ['4', '-1', '1.5', 'x', '']) {
      expect(await page.locator(`botfleet_child_frame=${body}`).count()).toBe(0);
    }
  });
});
