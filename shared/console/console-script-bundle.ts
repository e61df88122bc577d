/**
 * Bundles the console's browser code (browser/console-script.ts, with Chart.js and
 * @simplewebauthn/browser) into one script with esbuild: at the first console page of `npm start`,
 * and at `npm run build`, which puts it beside the pages and console functions' bundles. Lambda
 * bundles get a stand-in for this module (functions/lambda/no-console-script-bundle.ts), so esbuild
 * never ships in one.
 */
import { build } from 'esbuild';

export async function bundleConsoleScript(): Promise<Uint8Array> {
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
