/**
 * The console's static assets: its one script (the browser code of browser/, Chart.js bundled in,
 * nothing from a CDN) and its stylesheet, each served at a path holding a hash of its content, so
 * it can be cached as immutable and a new build is a new URL. The script is bundled with esbuild
 * the first time a console page needs it (a Lambda bundle carries it prebuilt beside itself).
 */

import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { BUNDLED_CONSOLE_FILES } from '../../schemas/function-conventions.js';
import { besideBundle } from '../bundle-assets.js';
import { lazy } from '../lazy.js';

export const ASSETS_PATH = '/console/assets/';

export interface ConsoleAsset {
  /** The file name under /console/assets/, content hash included. */
  name: string;
  /** Its URL path, for pages to link. */
  path: string;
  contentType: string;
  body: Uint8Array;
}

export interface ConsoleAssets {
  script: ConsoleAsset;
  stylesheet: ConsoleAsset;
  byName: ReadonlyMap<string, ConsoleAsset>;
}

const [SCRIPT_FILE, STYLESHEET_FILE] = BUNDLED_CONSOLE_FILES;

function asset(stem: string, extension: string, contentType: string, body: Uint8Array): ConsoleAsset {
  const hash = createHash('sha256').update(body).digest('hex').slice(0, 16);
  const name = `${stem}-${hash}.${extension}`;
  return { name, path: `${ASSETS_PATH}${name}`, contentType, body };
}

/** The browser code bundled: prebuilt beside a Lambda bundle, or by esbuild from source. */
async function loadScript(): Promise<Uint8Array> {
  const prebuilt = besideBundle(SCRIPT_FILE);
  if (prebuilt) return readFile(prebuilt);
  // A Lambda bundle has the prebuilt file, and a stand-in for this module (no esbuild in it).
  const { bundleConsoleScript } = await import('./console-script-bundle.js');
  return bundleConsoleScript();
}

/** The stylesheet as written, which the build copies beside a bundle. */
export const consoleStylesheetSource = fileURLToPath(new URL(`./${STYLESHEET_FILE}`, import.meta.url));

async function loadStylesheet(): Promise<Uint8Array> {
  return readFile(besideBundle(STYLESHEET_FILE) ?? consoleStylesheetSource);
}

async function loadAssets(): Promise<ConsoleAssets> {
  const [script, stylesheet] = await Promise.all([loadScript(), loadStylesheet()]);
  const assets = {
    script: asset('console', 'js', 'text/javascript; charset=utf-8', script),
    stylesheet: asset('console', 'css', 'text/css; charset=utf-8', stylesheet),
  };
  return { ...assets, byName: new Map(Object.values(assets).map((each) => [each.name, each])) };
}

/** The assets, built once on first use; a failed build is tried again by the next request. */
export function consoleAssets(): () => Promise<ConsoleAssets> {
  return lazy(loadAssets);
}

/**
 * The answer to GET /console/assets/<name>: the asset, cacheable for good (its name changes with its
 * content), or undefined for a name that is not one. The console app serves it, and so does the
 * pages function on AWS, where the console's own function serves only pages.
 */
export function assetResponse(assets: ConsoleAssets, name: string): Response | undefined {
  const asset = assets.byName.get(name);
  if (!asset) return undefined;
  return new Response(asset.body as Uint8Array<ArrayBuffer>, {
    headers: {
      'Content-Type': asset.contentType,
      'Cache-Control': 'public, max-age=31536000, immutable',
      'X-Content-Type-Options': 'nosniff',
    },
  });
}
