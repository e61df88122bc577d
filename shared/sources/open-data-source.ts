/**
 * The one place that picks the data source by DATA_SOURCE: the dataset database (DATASET, else the
 * generated sample), or another service's /api/v2 (UPSTREAM_URL). One upstream client per
 * configuration, so every family's run functions of a process share its kept-alive connections and
 * its limit of requests in flight.
 */
import type { Config } from '../config.js';
import type { DataSource } from './data-source.js';
import { datasetSource } from './dataset/open-dataset.js';
import { UpstreamClient } from './upstream/upstream-client.js';
import { UpstreamSource } from './upstream/upstream-source.js';

const upstreams = new WeakMap<Config, UpstreamSource>();

export function openDataSource(config: Config): DataSource {
  if (config.DATA_SOURCE === 'dataset') return datasetSource(config.DATASET);
  let source = upstreams.get(config);
  if (!source) {
    source = new UpstreamSource(
      new UpstreamClient({
        // loadConfig refuses DATA_SOURCE=upstream without these two.
        baseUrl: config.UPSTREAM_URL as string,
        apiKey: config.UPSTREAM_API_KEY as string,
        timeoutMs: config.UPSTREAM_TIMEOUT_MS,
        maxInFlight: config.UPSTREAM_MAX_IN_FLIGHT,
      }),
    );
    upstreams.set(config, source);
  }
  return source;
}
