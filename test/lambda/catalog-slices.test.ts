/**
 * Each function of the plan (schemas/functions.ts) serves exactly its own slice of the catalog: its
 * service is built the way its generated entry builds it (scripts/build-functions.ts: the modules
 * `implementationModulesOf` names, a family's or an operation's own, never the whole catalog), and then an operation function
 * routes its operation's v1 and /api/v2 paths and no other operation's, a tool-group function lists
 * exactly its group's tools, a batch consumer takes exactly its group's operations. In-process, without
 * a key: a routed path answers 401, an unrouted one the service's 404.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { LambdaFamily } from '../../functions/lambda/lambda-service.js';
import { createOperationService } from '../../functions/lambda/operation-handler.js';
import { createToolGroupDispatcher } from '../../functions/lambda/tool-group-handler.js';
import { catalog } from '../../schemas/catalog.js';
import {
  batchGroupMembers,
  batchGroupMembersOf,
  deployedFunctions,
  type FunctionSpec,
  implementationModulesOf,
  toolGroupMembers,
} from '../../schemas/functions.js';
import type { OperationDefinition } from '../../schemas/operation-definition.js';
import { v2RoutesOf } from '../../schemas/v2-routes.js';
import * as account from '../../shared/operations/account.js';
import * as companies from '../../shared/operations/companies.js';
import * as emailsDisposable from '../../shared/operations/emails-disposable.js';
import * as emailsFind from '../../shared/operations/emails-find.js';
import * as emailsVerify from '../../shared/operations/emails-verify.js';
import * as jobs from '../../shared/operations/jobs.js';
import * as posts from '../../shared/operations/posts.js';
import * as profiles from '../../shared/operations/profiles.js';
import * as search from '../../shared/operations/search.js';
import * as websites from '../../shared/operations/websites.js';
import { ensureSampleDatabase } from '../../shared/sources/dataset/sample-database.js';

const byId = new Map<string, OperationDefinition>(catalog.map((operation) => [operation.id, operation]));
const definitionOf = (id: string) => byId.get(id) as OperationDefinition;

/** The modules the generated entries import, as they import them (`import * as familyN`), by name. */
const implementationModules = new Map<string, LambdaFamily>([
  ['profiles', profiles],
  ['companies', companies],
  ['posts', posts],
  ['search', search],
  ['jobs', jobs],
  ['emails-disposable', emailsDisposable],
  ['emails-verify', emailsVerify],
  ['emails-find', emailsFind],
  ['websites', websites],
  ['account', account],
]);
const familiesOf = (spec: FunctionSpec) =>
  implementationModulesOf(spec.operations.map(definitionOf)).map((name) => {
    const module = implementationModules.get(name);
    if (!module) throw new Error(`No module ${name} under shared/operations/ for ${spec.name}`);
    return module;
  });

/** Every path of an operation, v1 and /api/v2, with each path parameter filled. */
const pathsOf = (operation: OperationDefinition) => [
  ...operation.variants.map((variant) => variant.path),
  ...v2RoutesOf([operation]).map((route) => route.path.replace(/\{[^}]+\}/g, 'x')),
];

/** Whether a filled path fits one of `operation`'s path templates (`/companies/{name}` takes `/companies/x`). */
const fitsTemplate = (operation: OperationDefinition, path: string) =>
  [
    ...operation.variants.map((variant) => variant.path),
    ...v2RoutesOf([operation]).map((route) => route.path),
  ]
    .map((template) => new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}$`))
    .some((pattern) => pattern.test(path));

const plan = deployedFunctions();
const ofKind = (kind: FunctionSpec['kind']) => plan.filter((spec) => spec.kind === kind);

beforeAll(() => {
  // What infra gives every function; the table is never reached: no request here carries a key.
  Object.assign(process.env, {
    DYNAMODB_TABLE: 'catalog-slices',
    DYNAMODB_ENDPOINT: 'http://127.0.0.1:9',
    AWS_REGION: 'us-east-1',
    DATASET: ensureSampleDatabase(),
    LOG_LEVEL: 'silent',
  });
});

describe.each(ofKind('operation'))('operation function $name', (spec) => {
  it('routes its own v1 and /api/v2 paths and no other operation’s', async () => {
    const own = definitionOf(spec.operations[0] as string);
    const service = await createOperationService(own.id, familiesOf(spec)[0] as LambdaFamily);
    expect(service.operations.map((operation) => operation.definition.id)).toEqual([own.id]);

    for (const path of pathsOf(own)) {
      const response = await service.app.request(path);
      expect({ path, status: response.status }).toEqual({ path, status: 401 });
    }
    const foreign = catalog
      .filter((operation) => operation.id !== own.id)
      .flatMap(pathsOf)
      .filter((path) => !fitsTemplate(own, path));
    expect(foreign.length).toBeGreaterThan(0);
    for (const path of foreign) {
      const response = await service.app.request(path);
      const body = (await response.json()) as { error: { code: string; message: string } };
      expect({ path, status: response.status, message: body.error.message }).toEqual({
        path,
        status: 404,
        message: 'No endpoint at this path.',
      });
    }
  });
});

describe.each(ofKind('tool-group'))('tool-group function $name', (spec) => {
  it('lists exactly its group’s tools', async () => {
    const group = definitionOf(spec.operations[0] as string).group;
    const { tools } = await createToolGroupDispatcher(group, familiesOf(spec));
    const expected = (toolGroupMembers().get(group) ?? []).map((member) => member.mcpTool);
    expect(expected.length).toBeGreaterThan(0);
    expect([...tools.keys()]).toEqual(expected);
  });
});

describe.each(ofKind('batch-consumer'))('batch consumer $name', (spec) => {
  it('takes exactly its group’s operations from its families', async () => {
    const group = definitionOf(spec.operations[0] as string).group;
    const declared = familiesOf(spec).flatMap((family) => family.operations);
    const ids = (operations: readonly OperationDefinition[] = []) => operations.map(({ id }) => id);
    expect(ids(batchGroupMembersOf(declared).get(group))).toEqual(ids(batchGroupMembers().get(group)));
    expect(ids(batchGroupMembersOf(declared).get(group))).toEqual(spec.operations);
  });
});
