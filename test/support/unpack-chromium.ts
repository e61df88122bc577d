/**
 * Vitest's global setup: unpacks Chromium once, before any test file runs. @sparticuz/chromium
 * inflates its binary into the temp folder when it is absent there, so two files launching it at the
 * same time could see a half-written binary; unpacked up front, browser files run beside the others.
 */
import chromium from '@sparticuz/chromium';

export default async function unpackChromium(): Promise<void> {
  await chromium.executablePath();
}
