/**
 * The OpenAPI document and the reference at /docs of a process that serves the operations itself
 * (`npm start`): every family's routes of its operations, and the batch resource. Lambda functions
 * never load it: the pages function serves a document made at build time (pages-documents.ts).
 */
import { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import type { Service } from '../service.js';
import { apiFamilies } from '../service.js';
import { documentApi } from './api-documentation.js';
import { documentBatchPaths } from './batch-openapi.js';
import { openApiText, serveDocumentation } from './documentation-pages.js';
import { buildOpenApiDocument } from './openapi.js';

export function mountDocumentation({ app, operations, config }: Service): void {
  const registry = new OpenAPIRegistry();
  for (const api of apiFamilies) documentApi(registry, api, operations);
  const definitions = operations.map((operation) => operation.definition);
  documentBatchPaths(registry, definitions);
  serveDocumentation(app, {
    publicBaseUrl: config.PUBLIC_BASE_URL,
    document: () => openApiText(buildOpenApiDocument(registry, definitions)),
  });
}
