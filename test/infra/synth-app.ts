/**
 * Synthesizes the CDK app in-process for template assertions, from placeholder bundles in a temp
 * `dist` (one `index.mjs` per deployed function: the assets only need to exist), and reads the
 * routing table back out of the templates.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App, type CfnResource, type NestedStack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { buildApp } from '../../infra/build-app.js';
import type { LookupServiceStack } from '../../infra/lookup-service-stack.js';
import { BUNDLED_DATASET_FILE, deployedFunctions } from '../../schemas/functions.js';

/** A `dist` with a placeholder bundle for every deployed function, and a placeholder sample where one is carried. */
export function placeholderDist(root = mkdtempSync(join(tmpdir(), 'infra-dist-'))): string {
  for (const { name, dataset } of deployedFunctions()) {
    const directory = join(root, 'functions', name);
    mkdirSync(directory, { recursive: true });
    writeFileSync(
      join(directory, 'index.mjs'),
      'export const handler = async () => ({ statusCode: 200 });\n',
    );
    if (dataset) writeFileSync(join(directory, BUNDLED_DATASET_FILE), 'placeholder sample\n');
  }
  return root;
}

export interface SynthesizedApp {
  /** The cloud assembly's folder (the staged assets are its `asset.<hash>` folders). */
  outdir: string;
  stack: LookupServiceStack;
  main: Template;
  /** Every nested stack's template by its construct id (`Functions-profiles`, `Routes-search`). */
  nested: Map<string, Template>;
  /** Main and nested, by construct id (`main` for the main stack). */
  all: Map<string, Template>;
  /** The main stack's logical id of each nested stack's resource, by construct id. */
  nestedResourceIds: Map<string, string>;
}

export function synthApp(context: Record<string, string> = {}): SynthesizedApp {
  const outdir = mkdtempSync(join(tmpdir(), 'infra-out-'));
  const app = new App({ outdir, context: { distDir: placeholderDist(), ...context } });
  const stack = buildApp(app);
  // Runs the validation plugins too: an unacknowledged cdk-nag finding throws here.
  app.synth();
  const main = Template.fromStack(stack);
  const nestedStacks: [string, NestedStack][] = [
    ...[...stack.functionStacks].map(
      ([name, nestedStack]) => [`Functions-${name}`, nestedStack] as [string, NestedStack],
    ),
    ...[...stack.routeStacks].map(
      ([name, nestedStack]) => [`Routes-${name}`, nestedStack] as [string, NestedStack],
    ),
  ];
  const nested = new Map(nestedStacks.map(([id, nestedStack]) => [id, Template.fromStack(nestedStack)]));
  const nestedResourceIds = new Map(
    nestedStacks.map(([id, nestedStack]) => [
      id,
      stack.getLogicalId(nestedStack.nestedStackResource as CfnResource),
    ]),
  );
  return { outdir, stack, main, nested, all: new Map([['main', main], ...nested]), nestedResourceIds };
}

type Json = Record<string, unknown>;
const resourcesOf = (template: Template) => template.toJSON().Resources as Record<string, Json>;
const propertiesOf = (resource: Json) => resource.Properties as Json;

/**
 * The routing table as the templates hold it: path → the physical name of the function its ANY
 * method integrates with. Follows parameters of nested stacks back to the main stack and outputs of
 * the function stacks to the function resources.
 */
export function deployedRoutes(synthesized: SynthesizedApp): Map<string, string> {
  const mainResources = resourcesOf(synthesized.main);
  const stackResourceIdOf = (id: string) => synthesized.nestedResourceIds.get(id);
  // Function ARN outputs of each function stack, by the main stack's GetAtt that reads them.
  const functionByOutput = new Map<string, string>();
  for (const [id, template] of synthesized.nested) {
    if (!id.startsWith('Functions-')) continue;
    const resources = resourcesOf(template);
    const stackId = stackResourceIdOf(id) as string;
    for (const [name, output] of Object.entries((template.toJSON().Outputs ?? {}) as Record<string, Json>)) {
      const value = output.Value as { 'Fn::GetAtt'?: [string, string] };
      const target = value['Fn::GetAtt'];
      if (target?.[1] !== 'Arn') continue; // only the function ARN outputs
      const fn = resources[target[0]];
      if (fn?.Type !== 'AWS::Lambda::Function') continue;
      functionByOutput.set(`${stackId}.Outputs.${name}`, propertiesOf(fn).FunctionName as string);
    }
  }
  const routes = new Map<string, string>();
  const mainPaths = pathsOf(mainResources, () => undefined);
  const resolveArn = (reference: unknown, parameters: Json): string => {
    const ref = (reference as { Ref?: string }).Ref;
    const getAtt = (ref ? parameters[ref] : reference) as { 'Fn::GetAtt'?: [string, string] };
    const [stackId, attribute] = getAtt['Fn::GetAtt'] ?? [];
    return functionByOutput.get(`${stackId}.${attribute}`) ?? `unresolved ${JSON.stringify(reference)}`;
  };
  const collect = (resources: Record<string, Json>, paths: Map<string, string>, parameters: Json) => {
    for (const resource of Object.values(resources)) {
      if (resource.Type !== 'AWS::ApiGateway::Method') continue;
      const properties = propertiesOf(resource);
      const parent = properties.ResourceId as { Ref?: string; 'Fn::GetAtt'?: unknown };
      const path = parent.Ref ? paths.get(parent.Ref) : '/';
      const uri = (properties.Integration as Json).Uri as { 'Fn::Join': [string, unknown[]] };
      const arn = uri['Fn::Join'][1].find(
        (part) =>
          typeof part === 'object' &&
          part !== null &&
          !('Ref' in part && String((part as Json).Ref).startsWith('AWS::')),
      );
      routes.set(`${properties.HttpMethod} ${path}`, resolveArn(arn, parameters));
    }
  };
  collect(mainResources, mainPaths, {});
  for (const [id, template] of synthesized.nested) {
    if (!id.startsWith('Routes-')) continue;
    const stackResource = mainResources[stackResourceIdOf(id) as string] as Json;
    const parameterValues = (propertiesOf(stackResource).Parameters ?? {}) as Json;
    // A nested parameter carrying a main-stack resource id is a mount: its path is the main stack's.
    const mountPath = (parameter: string) => {
      const value = parameterValues[parameter] as { Ref?: string } | undefined;
      return value?.Ref ? mainPaths.get(value.Ref) : undefined;
    };
    const resources = resourcesOf(template);
    collect(resources, pathsOf(resources, mountPath), parameterValues);
  }
  return routes;
}

/** Resource logical id → full path, from PathPart and ParentId chains. */
function pathsOf(
  resources: Record<string, Json>,
  external: (ref: string) => string | undefined,
): Map<string, string> {
  const paths = new Map<string, string>();
  const pathOf = (logicalId: string): string => {
    const known = paths.get(logicalId);
    if (known) return known;
    const resource = resources[logicalId];
    if (!resource) return external(logicalId) ?? `?${logicalId}`;
    const properties = propertiesOf(resource);
    const parent = properties.ParentId as { Ref?: string };
    const parentPath = parent.Ref ? pathOf(parent.Ref) : '';
    const path = `${parentPath === '/' ? '' : parentPath}/${properties.PathPart as string}`;
    paths.set(logicalId, path);
    return path;
  };
  for (const [logicalId, resource] of Object.entries(resources))
    if (resource.Type === 'AWS::ApiGateway::Resource') pathOf(logicalId);
  return paths;
}
