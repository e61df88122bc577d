/**
 * Renders a console page: the doctype, the JSX tree, and the status; the headers every answer gets
 * are set by the app's middleware (console-app.tsx).
 */
import type { JSX } from 'hono/jsx/jsx-runtime';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { ConsoleContext } from './console-env.js';

export async function renderPage(
  c: ConsoleContext,
  page: JSX.Element,
  status: ContentfulStatusCode = 200,
  headers: Record<string, string> = {},
): Promise<Response> {
  const html = `<!DOCTYPE html>${await page.toString()}`;
  return c.html(html, status, headers);
}
