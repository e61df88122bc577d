/**
 * The operation catalog: every public operation declared once, as plain data plus zod schemas
 * (what an entry holds: operation-definition.ts). REST routes, /api/v2 routes, MCP tools, the
 * OpenAPI document, the docs tables, Lambda entry points and CDK routes are all derived from this
 * list. It imports only zod, so infrastructure code can read it without loading any runtime
 * dependency.
 */
import type { OperationDefinition } from './operation-definition.js';
import { accountOperations } from './operations/account.js';
import { companyOperations } from './operations/companies.js';
import { emailOperations } from './operations/emails.js';
import { jobOperations } from './operations/jobs.js';
import { postOperations } from './operations/posts.js';
import { profileOperations } from './operations/profiles.js';
import { searchOperations } from './operations/search.js';
import { websiteOperations } from './operations/websites.js';
import { type V2Route, v2RoutesOf } from './v2-routes.js';

export const catalog = [
  ...profileOperations,
  ...companyOperations,
  ...postOperations,
  ...searchOperations,
  ...jobOperations,
  ...emailOperations,
  ...websiteOperations,
  ...accountOperations,
] as const satisfies readonly OperationDefinition[];

export type OperationId = (typeof catalog)[number]['id'];

/**
 * The v2 routes of the whole catalog (the local server's, the docs'); a function derives its own
 * operations' routes with v2RoutesOf, so it never builds the catalog.
 */
export const v2Routes: readonly V2Route[] = v2RoutesOf(catalog);
