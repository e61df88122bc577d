/**
 * The cloud assembly on disk (cdk.out): manifest.json's one stack artifact, and the asset manifests
 * that map what CloudFormation would fetch from S3 (nested templates, code archives) to the files
 * and folders CDK wrote beside the templates.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CloudAssemblyError } from './cloud-assembly-error.js';
import type { Environment } from './resource-kinds.js';
import { type AssemblyFiles, StackTemplate, type Template } from './stack-template.js';

/** The cloud assembly's files: the directory, the account it is read for and its file assets. */
class AssemblyDirectory implements AssemblyFiles {
  /** An asset's S3 object key (`<hash>.zip`, `<hash>.json`) → its path under cdk.out. */
  private readonly assets = new Map<string, string>();

  constructor(
    readonly directory: string,
    readonly environment: Environment,
    assetManifests: string[],
  ) {
    for (const file of assetManifests) {
      const manifest = this.readJson(file) as {
        files?: Record<
          string,
          { source: { path: string }; destinations: Record<string, { objectKey: string }> }
        >;
      };
      for (const asset of Object.values(manifest.files ?? {}))
        for (const destination of Object.values(asset.destinations))
          this.assets.set(destination.objectKey, asset.source.path);
    }
  }

  readJson(file: string): unknown {
    return JSON.parse(readFileSync(join(this.directory, file), 'utf8'));
  }

  assetPath(objectKey: string): string | undefined {
    return this.assets.get(objectKey);
  }
}

interface ManifestArtifact {
  type: string;
  properties?: { templateFile?: string; stackName?: string; file?: string };
}

/** The stack artifact of manifest.json (exactly one) and the asset manifests beside it. */
export function openAssembly(cdkOut: string, environment: Environment): StackTemplate {
  const manifestFile = join(cdkOut, 'manifest.json');
  const manifest = JSON.parse(readFileSync(manifestFile, 'utf8')) as {
    artifacts?: Record<string, ManifestArtifact>;
  };
  const artifacts = Object.entries(manifest.artifacts ?? {});
  const stacks = artifacts.filter(([, artifact]) => artifact.type === 'aws:cloudformation:stack');
  const [stack] = stacks;
  if (stacks.length !== 1 || !stack?.[1].properties?.templateFile)
    throw new CloudAssemblyError(`${manifestFile}: expected one stack artifact, found ${stacks.length}`);
  const [artifactId, { properties }] = stack;
  const assetManifests = artifacts.flatMap(([, artifact]) =>
    artifact.type === 'cdk:asset-manifest' && artifact.properties?.file ? [artifact.properties.file] : [],
  );
  const assembly = new AssemblyDirectory(cdkOut, environment, assetManifests);
  const name = properties.stackName ?? artifactId;
  const file = properties.templateFile as string;
  return StackTemplate.root(assembly, file, name, assembly.readJson(file) as Template);
}
