/**
 * The one place that picks the data source by DATA_SOURCE: the dataset database (DATASET, else the
 * generated sample), or another service's /api/v2 (UPSTREAM_URL). One upstream client per
 * configuration, so every family's run functions of a process share its kept-alive connections and
 * its limit of requests in flight.
 *
 * The upstream adapter is imported on its first call only: it reads answers through every data
 * family's schemas, which a function of one operation on the dataset would otherwise construct at
 * every cold start (a bundle keeps it in a chunk of its own).
 */
import type { Config } from '../config.js';
import type { DataSource } from './data-source.js';
import { datasetSource } from './dataset/open-dataset.js';

const upstreams = new WeakMap<Config, DataSource>();

export function openDataSource(config: Config): DataSource {
  if (config.DATA_SOURCE === 'dataset') return datasetSource(config.DATASET);
  let source = upstreams.get(config);
  if (!source) {
    source = whenImported(() => openUpstream(config));
    upstreams.set(config, source);
  }
  return source;
}

async function openUpstream(config: Config): Promise<DataSource> {
  const [{ UpstreamClient }, { UpstreamSource }] = await Promise.all([
    import('./upstream/upstream-client.js'),
    import('./upstream/upstream-source.js'),
  ]);
  return new UpstreamSource(
    new UpstreamClient({
      // loadConfig refuses DATA_SOURCE=upstream without these two.
      baseUrl: config.UPSTREAM_URL as string,
      apiKey: config.UPSTREAM_API_KEY as string,
      timeoutMs: config.UPSTREAM_TIMEOUT_MS,
      maxInFlight: config.UPSTREAM_MAX_IN_FLIGHT,
    }),
  );
}

/**
 * A DataSource whose every method waits for `open` (called once, on the first method call) and then
 * runs on what it gave. Every method of the port returns a promise, so callers see no difference.
 */
function whenImported(open: () => Promise<DataSource>): DataSource {
  let opened: Promise<DataSource> | undefined;
  return new Proxy({} as DataSource, {
    get: (_target, method: string | symbol) => {
      // Not a thenable: `await source` must give the source itself.
      if (method === 'then') return undefined;
      return async (...args: unknown[]) => {
        opened ??= open();
        const source = await opened;
        const run = source[method as keyof DataSource] as (...values: unknown[]) => Promise<unknown>;
        return run.apply(source, args);
      };
    },
  });
}
