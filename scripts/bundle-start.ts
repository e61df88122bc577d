/**
 * What a bundle loads at start, read from esbuild's metafile: its entry and the chunks it imports
 * statically, transitively. Chunks reached only through import() are read when a path takes them.
 * Shared by the build (which refuses some modules at start) and the tests that check its bundles.
 */
import type { Metafile } from 'esbuild';

/** `entry` and the chunks it imports statically, transitively (not those imported by import()). */
export function initOutputs(metafile: Metafile, entry: string): string[] {
  const read = new Set<string>();
  const visit = (output: string) => {
    if (read.has(output)) return;
    read.add(output);
    for (const imported of metafile.outputs[output]?.imports ?? [])
      if (imported.kind === 'import-statement' && !imported.external) visit(imported.path);
  };
  visit(entry);
  return [...read];
}

/** The source modules every cold start loads. */
export function initInputs(metafile: Metafile, entry: string): string[] {
  return initOutputs(metafile, entry).flatMap((output) =>
    Object.keys(metafile.outputs[output]?.inputs ?? {}),
  );
}
