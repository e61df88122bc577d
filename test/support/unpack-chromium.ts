/**
 * vitest's global setup: unpacks @sparticuz/chromium's binary into the temp folder once, before any
 * test file runs. Every launch after it finds the binary there; without it, two files launching
 * Chromium for the first time at once would both unpack it, and one could start the other's
 * half-written binary (a browser file and a Lambda test of a website function, say).
 */
import chromium from '@sparticuz/chromium';

export default async function unpackChromium(): Promise<void> {
  await chromium.executablePath();
}
