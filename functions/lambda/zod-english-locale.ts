/**
 * Stands in for zod's table of locales in every Lambda bundle (an esbuild plugin in
 * scripts/build-functions.ts swaps it in for the `locales` namespace zod re-exports from its classic, mini and core entries): zod configures
 * English itself and this service never picks another locale (its messages are its own), yet the
 * namespace keeps all 64 locales in a bundle, ~258 KiB of the ~1.1 MB every cold start compiles.
 */
export { default as en } from 'zod/v4/locales/en.js';
