/**
 * axe-core in a page under test: its serious and critical violations of the page as it stands, run
 * over the DevTools protocol (past the page's CSP, which allows no script but its own).
 */
import { readFile } from 'node:fs/promises';
import type { Page } from 'puppeteer-core';

const AXE = new URL('../../node_modules/axe-core/axe.min.js', import.meta.url);
let axeSource: Promise<string> | undefined;

interface AxeViolation {
  id: string;
  impact: string;
  nodes: { target: string[] }[];
}

/** `<rule>: <elements>` for each serious or critical violation; none for an accessible page. */
export async function seriousViolations(page: Page): Promise<string[]> {
  axeSource ??= readFile(AXE, 'utf8');
  await page.evaluate(await axeSource);
  const violations = await page.evaluate(async () => {
    const { axe } = window as unknown as { axe: { run(): Promise<{ violations: AxeViolation[] }> } };
    return (await axe.run()).violations;
  });
  return violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map(
      (violation) => `${violation.id}: ${violation.nodes.map((node) => node.target.join(' ')).join(', ')}`,
    );
}
