/**
 * What the data families' run functions share: the data source and the cursor store, and the
 * conversions from validated parameters to the port's references.
 */
import { CursorIssuer, cursorSecret } from '../paging/cursors.js';
import type { RunnerRuntime } from '../pipeline/operation.js';
import type { CompanyRef, DataSource, ProfileRef } from '../sources/data-source.js';
import { openDataSource } from '../sources/open-data-source.js';

export interface DataDependencies {
  source: DataSource;
  cursors: CursorIssuer;
}

/** The source the settings name (DATA_SOURCE, DATASET) unless one is given; cursors in the runtime's store. */
export function defaultDataDependencies(runtime: RunnerRuntime, source?: DataSource): DataDependencies {
  return {
    source: source ?? openDataSource(runtime.config),
    cursors: new CursorIssuer(
      runtime.store,
      runtime.clock,
      cursorSecret(runtime.store, runtime.config.CURSOR_SECRET),
    ),
  };
}

/** The validated identifier (a URL is already reduced to its username). */
export function profileRef(input: { username?: string; url?: string; publicId?: string }): ProfileRef {
  if (input.publicId) return { publicId: input.publicId };
  return { username: (input.username ?? input.url) as string };
}

export function companyRef(input: { slug?: string; url?: string; publicId?: string }): CompanyRef {
  if (input.publicId) return { publicId: input.publicId };
  return { slug: (input.slug ?? input.url) as string };
}

/** A post URL is already reduced to its slug. */
export function postSlug(input: { url?: string; slug?: string }): string {
  return (input.slug ?? input.url) as string;
}
