/**
 * Launching headless Chromium for the website tools (browser.ts runs it): the only module that loads
 * `@sparticuz/chromium` and `puppeteer-core`. browser.ts imports it at its first launch, so a website
 * function starts without reading either (about 480 KiB of its bundle, docs/benchmarks.md) and a
 * request refused before any page (a key, a parameter, the rate limit, the balance) never loads them.
 *
 * Flags, and what each closes (FIELD-NOTES "Headless Chromium and SSRF", measured with Chromium 153
 * behind a recording proxy):
 * - `--proxy-server=<proxy>` alone let localhost, `*.localhost`, 127/8, [::1], [::ffff:127.0.0.1],
 *   decimal IPs, 169.254.169.254, WebSockets and WebRTC TURN-TCP go direct;
 *   `--proxy-bypass-list=<-loopback>` removes the implicit loopback bypass and sent all of those through
 *   the proxy.
 * - `--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1`: Chromium does no DNS of its own (a name
 *   can only reach the network as `CONNECT name:443` / `GET http://name/` to the proxy, which resolves
 *   it once and dials the checked address), so no name can be rebound between two resolutions.
 * - `--force-webrtc-ip-handling-policy=disable_non_proxied_udp`: WebRTC UDP bypassed the proxy until set.
 * - `--disable-quic`: no HTTP/3 over UDP, which an HTTP proxy cannot carry.
 * - `--block-new-web-contents`: window.open and popups fail (measured here: window.open returns null
 *   and no target is created); popups that appear anyway are closed.
 * - `--disable-features=DnsOverHttps`, `--disable-background-networking`, `--disable-component-update`,
 *   `--disable-sync`, `--no-first-run`: no background fetches of the browser's own (several are no-ops in
 *   the headless shell, kept so a full Chromium behaves the same).
 * - `pipe: true`: DevTools over a pipe, so no remote-debugging port listens on loopback for a page to
 *   find (the proxy would refuse it anyway: loopback, and not port 80/443).
 * - Removed from `chromium.args`: `--single-process` (measured here: creating a second browser context
 *   crashes the browser, puppeteer#2608; Sparticuz added it for a Lambda launch error, chromium#80, so
 *   verify a deployed function), `--disable-web-security` and `--allow-running-insecure-content` (same
 *   origin policy and mixed-content blocking stay on; they are the page's limits, not ours to lift).
 * - `--no-sandbox`/`--no-zygote` only when running as root or on Lambda: Chromium refuses to start its
 *   sandbox as root and Lambda has no user namespaces (measured here: as uid 65534 the sandboxed binary
 *   did not come up in this container either). Without a sandbox a renderer exploit runs with the
 *   browser's rights, which is another reason the boundary is a separate process, not the browser.
 */
import chromium from '@sparticuz/chromium';
import puppeteer, { type Browser } from 'puppeteer-core';
import { BUNDLED_CHROMIUM_DIRECTORY } from '../../schemas/function-conventions.js';
import { besideBundle } from '../bundle-assets.js';

const LAUNCH_TIMEOUT_MS = 30_000;
const PROTOCOL_TIMEOUT_MS = 60_000;

/** Flags of `chromium.args` this module removes; see the module header for why. */
const REMOVED_FLAGS = new Set([
  '--single-process',
  '--disable-web-security',
  '--allow-running-insecure-content',
  '--no-sandbox',
  '--no-zygote',
  '--headless',
]);

/** The Chromium command line beyond Puppeteer's defaults; see the module header for each flag. */
function chromiumArgs(proxyUrl: string): string[] {
  const base = chromium.args.filter((arg) => !REMOVED_FLAGS.has(arg.split('=')[0] ?? arg));
  const asRoot = process.getuid?.() === 0;
  const onLambda = process.env.AWS_LAMBDA_FUNCTION_NAME !== undefined;
  return [
    ...base,
    ...(asRoot || onLambda ? ['--no-sandbox', '--no-zygote'] : []),
    `--proxy-server=${proxyUrl}`,
    '--proxy-bypass-list=<-loopback>',
    '--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1',
    '--force-webrtc-ip-handling-policy=disable_non_proxied_udp',
    '--disable-quic',
    '--block-new-web-contents',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    '--no-first-run',
    // Puppeteer merges every --disable-features flag it is given into one.
    '--disable-features=DnsOverHttps',
  ];
}

/** A new browser whose every connection goes through the egress proxy at `proxyUrl`. */
export async function launchChromium(proxyUrl: string): Promise<Browser> {
  // A website function carries the brotli archives beside its bundle; from source, the package's own.
  const executablePath = await chromium.executablePath(besideBundle(BUNDLED_CHROMIUM_DIRECTORY));
  return puppeteer.launch({
    executablePath,
    headless: 'shell',
    pipe: true,
    args: chromiumArgs(proxyUrl),
    // Puppeteer's defaults switch the popup blocker off; keep it on.
    ignoreDefaultArgs: ['--disable-popup-blocking'],
    defaultViewport: { width: 1280, height: 800 },
    timeout: LAUNCH_TIMEOUT_MS,
    protocolTimeout: PROTOCOL_TIMEOUT_MS,
    handleSIGINT: false,
    handleSIGTERM: false,
    handleSIGHUP: false,
  });
}
