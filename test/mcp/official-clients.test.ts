/**
 * The official MCP tools against the running endpoint, as `npm test` (and so CI) runs them: the
 * conformance suite's server scenarios that apply to any server, and the MCP Inspector's command-
 * line mode listing and calling a tool. Both need Node 22 or newer: they run on the project's own node.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { catalog } from '../../schemas/catalog.js';
import { defaultToolNames } from '../../schemas/operation-definition.js';
import { type AuthProxy, startAuthProxy } from '../support/auth-proxy.js';
import { APPLICABLE_SERVER_SCENARIOS, runConformanceScenario } from '../support/conformance.js';
import { type Harness, startHarness } from '../support/harness.js';
import { type ListeningApp, listen } from '../support/mcp-server.js';
import { ROOT } from '../support/process-group.js';
import { identifierValues } from '../support/sample-inputs.js';

const run = promisify(execFile);
const NODE = join(ROOT, 'node_modules', '.bin', 'node');
const bin = (name: string) => join(ROOT, 'node_modules', '.bin', name);

let harness: Harness;
let app: ListeningApp;
let proxy: AuthProxy;
let apiKey: string;
/** The Inspector keeps state under HOME: give it a home of its own. */
let inspectorHome: string;

beforeAll(async () => {
  inspectorHome = await mkdtemp(join(tmpdir(), 'inspector-home-'));
  harness = await startHarness();
  app = await listen(harness);
  ({ apiKey } = await harness.provision({ credits: 100 }));
  proxy = await startAuthProxy(app.url, `Bearer ${apiKey}`);
});
afterAll(async () => {
  await proxy.close();
  await app.close();
  await harness.close();
  await rm(inspectorHome, { recursive: true, force: true });
});

describe('the official conformance suite', () => {
  it.each(APPLICABLE_SERVER_SCENARIOS)(
    'passes %s',
    async (scenario) => {
      expect(await runConformanceScenario(proxy.url, scenario)).toMatch(/Passed: (\d+)\/\1, 0 failed/);
    },
    60_000,
  );
});

describe('the MCP Inspector CLI', () => {
  const inspect = (...args: string[]) =>
    run(
      NODE,
      [
        bin('mcp-inspector'),
        '--cli',
        app.url,
        '--transport',
        'http',
        '--header',
        `Authorization: Bearer ${apiKey}`,
        ...args,
      ],
      { cwd: ROOT, timeout: 60_000, env: { ...process.env, HOME: inspectorHome } },
    );

  it('lists the default tools, with no schema portability problem in strict mode', async () => {
    const { stdout } = await inspect('--method', 'tools/list', '--strict');
    const { tools } = JSON.parse(stdout) as { tools: { name: string }[] };
    expect(tools.map((tool) => tool.name)).toEqual(defaultToolNames(catalog));
  }, 60_000);

  it('calls a tool', async () => {
    const { stdout } = await inspect(
      '--method',
      'tools/call',
      '--tool-name',
      'get_profile_details',
      '--tool-arg',
      `username=${identifierValues.profiles?.username}`,
    );
    const result = JSON.parse(stdout);
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent.data.username).toBe(identifierValues.profiles?.username);
    expect(result.structuredContent.meta.creditCost).toBe(2);
  }, 60_000);
});
