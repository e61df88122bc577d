/**
 * Run functions of the post family.
 */
import { postOperations } from '../../schemas/operations/posts.js';
import { implement, type OperationImplementation, type RunnerRuntime } from '../pipeline/operation.js';
import { type DataDependencies, defaultDataDependencies, postSlug } from './data-runtime.js';

/** The catalog entries this module runs: a function of this family serves only these. */
export { postOperations as operations };

export function createImplementations(
  runtime: RunnerRuntime,
  { source }: Pick<DataDependencies, 'source'> = defaultDataDependencies(runtime),
): OperationImplementation[] {
  return implement(postOperations, {
    'posts.details': async (input, { signal }) => ({ data: await source.post(postSlug(input), signal) }),
    'posts.comments': async (input, { signal }) => ({
      data: { comments: await source.postComments(postSlug(input), signal) },
    }),
    'posts.reactions': async (input, { signal }) => ({
      data: { reactions: await source.postReactions(postSlug(input), input.reactionType, signal) },
    }),
  });
}
