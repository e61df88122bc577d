/**
 * `generateDatasetFiles`: a generated dataset of any size written to a directory in the dataset
 * format. Reference data, companies and jobs are written first; people and their activity batch by
 * batch, each batch dropped once written, so memory stays bounded whatever the size (only the
 * register of issued identifiers grows). The same seed and size give the same bytes.
 */
import { type DatasetCounts, DatasetWriter } from './dataset-files.js';
import { DEFAULT_SEED } from './fixtures.js';
import { startGeneration } from './generate.js';

export interface GenerateFilesOptions {
  profiles: number;
  seed?: number;
  out: string;
  /** Called after each batch with the profiles written so far. */
  onProgress?: (profilesWritten: number) => void;
}

export async function generateDatasetFiles({
  profiles,
  seed = DEFAULT_SEED,
  out,
  onProgress,
}: GenerateFilesOptions): Promise<DatasetCounts> {
  const generation = startGeneration({ seed, profiles });
  const writer = await DatasetWriter.create(out);
  try {
    await writer.write('locations.jsonl', generation.locations);
    await writer.write('industries.jsonl', generation.industries);
    await writer.write('service-categories.jsonl', generation.serviceCategories);
    await writer.write('schools.jsonl', generation.schools);
    await writer.write('companies.jsonl', generation.companies);
    await writer.write('jobs.jsonl', generation.jobs);
    let written = 0;
    for (const batch of generation.batches) {
      await writer.write('people.jsonl', batch.people);
      await writer.write('posts.jsonl', batch.posts);
      await writer.write('comments.jsonl', batch.comments);
      await writer.write('reactions.jsonl', batch.reactions);
      written += batch.people.length;
      onProgress?.(written);
    }
  } catch (error) {
    await writer.abandon();
    throw error;
  }
  return writer.finish({
    fetchedAt: generation.fetchedAt,
    seed,
    generator: `lookup-service generate --profiles ${profiles} --seed ${seed}`,
  });
}
