/**
 * The official conformance suite's server scenarios that apply to any server, run against a URL
 * (an auth proxy in front of /mcp, since the runner sends no Authorization header). The others expect
 * the SDK's test server's own tools, resources and prompts; `dns-rebinding-protection` expects a
 * localhost Origin to be accepted, while this endpoint refuses every browser origin (SPEC
 * "Authentication" rule 5). Version 0.1.16 has no authorization scenario for servers: its `auth/*`
 * scenarios test clients against a mock authorization server. It is the newest on the registry
 * (checked 2026-11-26) and its scenarios speak the 2025 revisions only (2025-06-18, 2025-11-25):
 * none exists for the 2026-07-28 era yet, which SDK v2's own client holds instead
 * (test/mcp/protocol-eras.test.ts, and every tool in both eras in test/mcp/tools.test.ts).
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ROOT } from './process-group.js';

const run = promisify(execFile);

export const APPLICABLE_SERVER_SCENARIOS = ['server-initialize', 'ping', 'tools-list'] as const;

/** Runs one scenario on the project's own Node (the suite needs 22); its output, or throws with it. */
export async function runConformanceScenario(url: string, scenario: string): Promise<string> {
  const { stdout } = await run(
    join(ROOT, 'node_modules', '.bin', 'node'),
    [join(ROOT, 'node_modules', '.bin', 'conformance'), 'server', '--url', url, '--scenario', scenario],
    { cwd: ROOT, timeout: 60_000 },
  ).catch((error: { stdout?: string; stderr?: string }) => {
    throw new Error(`conformance ${scenario} failed:\n${error.stdout}\n${error.stderr}`);
  });
  return stdout;
}
