import { definePageFunction } from '@botfleet/core';
import type { BrowserContext } from 'playwright-core';

/** The binding through which a page reports that it reached for WebRTC. */
const REPORT_BINDING = '__botfleetWebRtcBlocked';

/**
 * The constructors through which a page starts ICE (STUN, TURN, host candidates). Removing them
 * leaves a page no way to send a WebRTC packet: the rest of the API (RTCRtpSender,
 * RTCIceCandidate...) only describes connections these create.
 */
const WEBRTC_CONSTRUCTORS = ['RTCPeerConnection', 'webkitRTCPeerConnection'] as const;

/**
 * Runs in every document of the context before its own scripts: the main frame, every iframe
 * (Chromium runs it in the initial empty document of a frame created synchronously too, before
 * the parent can reach into it) and every popup. A call of a removed constructor is reported once
 * per document; the page sees WebRTC as unsupported, as on a browser built without it.
 */
const removeWebRtc = definePageFunction(
  'removeWebRtc',
  ({ names, binding }: { names: readonly string[]; binding: string }) => {
    const win = window as unknown as Record<string, unknown>;
    let reported = false;
    for (const name of names) {
      if (!(name in win)) continue;
      const blocked = function () {
        if (!reported) {
          reported = true;
          const report = win[binding];
          if (typeof report === 'function') void (report as (name: string) => Promise<void>)(name);
        }
        throw new DOMException('WebRTC is disabled for this bot', 'NotSupportedError');
      };
      try {
        // Not deleted: a page testing `'RTCPeerConnection' in window` then calls it and is reported.
        Object.defineProperty(win, name, { value: blocked, writable: false, configurable: false });
      } catch {
        delete win[name];
      }
    }
  },
);

/**
 * For runs with the private network closed (ALLOW_PRIVATE_NETWORK=false): no WebRTC at all. The
 * browser's `--webrtc-ip-handling-policy=disable_non_proxied_udp` (browser-host.ts) already keeps
 * UDP away, but ICE over TCP (TURN over TCP, TCP candidates) still connects to any address, and
 * Playwright's request routes never see WebRTC. `onBlocked` hears of each document that tried.
 */
export async function installWebRtcGuard(context: BrowserContext, onBlocked: (what: string) => void): Promise<void> {
  await context.exposeBinding(REPORT_BINDING, (_source, name: unknown) => {
    onBlocked(typeof name === 'string' && WEBRTC_CONSTRUCTORS.some((n) => n === name) ? name : 'WebRTC');
  });
  await context.addInitScript(removeWebRtc, { names: WEBRTC_CONSTRUCTORS, binding: REPORT_BINDING });
}
