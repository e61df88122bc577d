/**
 * The console's static assets: its one script (the browser code of browser/, Chart.js bundled in,
 * nothing from a CDN) and its stylesheet, each served at a path holding a hash of its content, so
 * it can be cached as immutable and a new build is a new URL. The script is bundled with esbuild
 * the first time a console page needs it (a Lambda bundle carries it prebuilt beside itself).
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { besideBundle } from '../bundle-assets.js';

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

const SCRIPT_FILE = 'console-script.js';
const STYLESHEET_FILE = 'console.css';

function asset(stem: string, extension: string, contentType: string, body: Uint8Array): ConsoleAsset {
  const hash = createHash('sha256').update(body).digest('hex').slice(0, 16);
  const name = `${stem}-${hash}.${extension}`;
  return { name, path: `${ASSETS_PATH}${name}`, contentType, body };
}

/** The browser code bundled: prebuilt beside a Lambda bundle, or by esbuild from source. */
export async function bundleConsoleScript(): Promise<Uint8Array> {
  const prebuilt = besideBundle(SCRIPT_FILE);
  if (prebuilt) return readFile(prebuilt);
  // Imported here only: a deployed bundle carries the prebuilt file and no esbuild.
  const { build } = await import('esbuild');
  const result = await build({
    entryPoints: [new URL('./browser/console-script.ts', import.meta.url).pathname],
    bundle: true,
    format: 'iife',
    platform: 'browser',
    target: 'es2020',
    minify: true,
    write: false,
    legalComments: 'none',
  });
  return (result.outputFiles[0] as { contents: Uint8Array }).contents;
}

async function loadStylesheet(): Promise<Uint8Array> {
  return readFile(besideBundle(STYLESHEET_FILE) ?? new URL(`./${STYLESHEET_FILE}`, import.meta.url));
}

async function loadAssets(): Promise<ConsoleAssets> {
  const [script, stylesheet] = await Promise.all([bundleConsoleScript(), loadStylesheet()]);
  const assets = {
    script: asset('console', 'js', 'text/javascript; charset=utf-8', script),
    stylesheet: asset('console', 'css', 'text/css; charset=utf-8', stylesheet),
  };
  return { ...assets, byName: new Map(Object.values(assets).map((each) => [each.name, each])) };
}

/** The assets, built once on first use; a failed build is tried again by the next request. */
export function consoleAssets(): () => Promise<ConsoleAssets> {
  let loading: Promise<ConsoleAssets> | undefined;
  return () => {
    loading ??= loadAssets().catch((error: unknown) => {
      loading = undefined;
      throw error;
    });
    return loading;
  };
}
