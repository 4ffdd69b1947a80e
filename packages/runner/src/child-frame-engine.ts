import { CHILD_FRAME_ENGINE } from '@botfleet/core';
import { selectors } from 'playwright-core';
import { SECRET_TEXT_ENGINE, SECRET_TEXT_ENGINE_SOURCE } from './secret-text-engine';

/*
 * The selector engine behind a step's `frame` path (core's framePrefix): `botfleet_child_frame=1`
 * is the element (iframe or frame) of the second child frame of the document it runs in, with
 * child frames numbered as Chrome numbers them. Chrome's Recorder writes the path from its frame
 * tree, where children keep the order they were attached in, and @puppeteer/replay replays it
 * with `childFrames()[i]`; a page that adds its iframes out of document order (an ad slot filled
 * late, a widget prepended) would send a document-order index to the wrong frame. The page's
 * `window.frames` is kept in that same attach order, so the engine looks the child window up
 * there and returns the element whose contentWindow it is; this works for cross-origin frames
 * too (a WindowProxy can be compared across origins). Frames inside shadow roots are not in
 * `window.frames`: they are numbered after the others, in document order.
 *
 * It runs as a content script (an isolated world), so a page cannot redefine `frames` under it.
 */
const ENGINE_SOURCE = `({
  queryAll(root, body) {
    if (!/^\\d{1,4}$/.test(body)) return [];
    const index = Number(body);
    const doc = root.nodeType === 9 ? root : root.ownerDocument;
    const view = doc && doc.defaultView;
    if (!view) return [];
    if (index < view.frames.length) {
      const child = view.frames[index];
      const owners = Array.from(doc.querySelectorAll('iframe, frame'));
      return owners.filter((owner) => owner.contentWindow === child);
    }
    const shadowed = [];
    const collect = (scope, inShadow) => {
      for (const el of scope.querySelectorAll('*')) {
        if (inShadow && (el.localName === 'iframe' || el.localName === 'frame')) shadowed.push(el);
        if (el.shadowRoot) collect(el.shadowRoot, true);
      }
    };
    collect(doc, false);
    const owner = shadowed[index - view.frames.length];
    return owner ? [owner] : [];
  },
  query(root, body) {
    return this.queryAll(root, body)[0] || null;
  },
})`;

let registered: Promise<void> | undefined;

/**
 * Registers botfleet's selector engines with Playwright, once per process; a context made
 * before it would not know them, so the browser host calls it before its first launch.
 */
export function registerSelectorEngines(): Promise<void> {
  registered ??= Promise.all([
    selectors.register(CHILD_FRAME_ENGINE, { content: ENGINE_SOURCE }, { contentScript: true }),
    selectors.register(SECRET_TEXT_ENGINE, { content: SECRET_TEXT_ENGINE_SOURCE }, { contentScript: true }),
  ]).then(() => undefined);
  return registered;
}
