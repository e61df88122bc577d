/**
 * Run functions of the post family.
 */
import type { postOperations } from '../../schemas/operations/posts.js';
import type { RunnerMap, RunnerRuntime } from '../pipeline/operation.js';
import { type DataDependencies, defaultDataDependencies, postSlug } from './data-runtime.js';

export function createRunners(
  runtime: RunnerRuntime,
  { source }: Pick<DataDependencies, 'source'> = defaultDataDependencies(runtime),
): RunnerMap<(typeof postOperations)[number]> {
  return {
    'posts.details': async (input, { signal }) => ({ data: await source.post(postSlug(input), signal) }),
    'posts.comments': async (input, { signal }) => ({
      data: { comments: await source.postComments(postSlug(input), signal) },
    }),
    'posts.reactions': async (input, { signal }) => ({
      data: { reactions: await source.postReactions(postSlug(input), input.reactionType, signal) },
    }),
  };
}
