/**
 * Stands in for shared/console/console-script-bundle.ts in every Lambda bundle (swapped by
 * scripts/lambda-bundle-options.ts): the pages and console functions carry the script prebuilt
 * beside their bundle, and esbuild, a build tool with a native binary, must not ship.
 */
export async function bundleConsoleScript(): Promise<Uint8Array> {
  throw new Error('The console script is prebuilt beside the bundle (npm run build); this bundle has none.');
}
