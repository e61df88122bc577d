/**
 * True when `built` exists and nothing under `sources` (paths relative to `root`) changed after it;
 * false when it is missing.
 */
export declare function isCurrent(built: string, root: string, sources: readonly string[]): boolean;
