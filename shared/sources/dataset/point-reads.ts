/**
 * Which reads of the dataset stay on the event loop when `npm start` has reader threads
 * (reader-pool.ts). A read by one record's key (a profile, a company, a post, a job, and the lists a
 * record holds itself) is a few index probes, bounded whatever the dataset's size: measured, it costs
 * the event loop less than the hop to a thread does (posting the call, cloning the answer back; on
 * the billed profile lookup the hop was a sixth of the server's CPU, docs/benchmarks.md), and it
 * must not queue behind broad searches a thread is busy with. Everything whose work grows with the
 * data (searches, similar records, a company's people, posts or jobs, activity streams, counts) stays
 * on the threads, which is what they are for.
 */
import type { DataSource } from '../data-source.js';
import { PORT_METHODS, type PortMethod } from './reader-messages.js';

export const POINT_READS: ReadonlySet<PortMethod> = new Set<PortMethod>([
  'profileDetails',
  'profileContact',
  'profileList',
  'profileSkills',
  'profileCompanyInterests',
  'companyDetails',
  'companyProducts',
  'post',
  'job',
  'serviceCategories',
]);

/** `pooled` for every method, except the point reads, which `inThread` answers. */
export function withPointReadsInThread(inThread: DataSource, pooled: DataSource): DataSource {
  const source: Record<string, unknown> = Object.create(null);
  for (const method of PORT_METHODS) {
    const answerer = (POINT_READS.has(method) ? inThread : pooled) as unknown as Record<
      PortMethod,
      (...args: unknown[]) => unknown
    >;
    source[method] = answerer[method].bind(answerer);
  }
  return source as unknown as DataSource;
}
