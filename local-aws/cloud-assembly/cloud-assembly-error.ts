/**
 * The one error of reading cdk.out: a manifest, a template or a value the reader cannot turn into a
 * deployment. The message names the file and the logical id (or output) it stopped at.
 */
export class CloudAssemblyError extends Error {
  override name = 'CloudAssemblyError';
}
