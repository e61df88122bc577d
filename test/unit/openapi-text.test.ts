/**
 * The OpenAPI document kept as text (shared/http/documentation-pages.ts): served with the
 * deployment's server spliced in after `info`, it is the document an object would have given, in
 * the same member order, whatever the base URL holds.
 */
import { describe, expect, it } from 'vitest';
import { type OpenApiDocument, openApiText, servedOpenApi } from '../../shared/http/documentation-pages.js';

const document = {
  openapi: '3.1.0',
  info: { title: 'lookup-service', version: '1.0.0', description: 'Quotes " and \u2028 and é' },
  paths: { '/v1/emails/disposable': { get: { operationId: 'emails.disposable' } } },
  components: { schemas: { Error: { type: 'object' } } },
} as unknown as OpenApiDocument;

describe('openApiText and servedOpenApi', () => {
  it.each([
    ['https://api.example.com', [{ url: 'https://api.example.com' }]],
    ['https://example.com/base path/"quoted"', [{ url: 'https://example.com/base path/"quoted"' }]],
  ])('splice in the server %s after info', (base, servers) => {
    const served = JSON.parse(servedOpenApi(openApiText(document), base));
    expect(Object.keys(served)).toEqual(['openapi', 'info', 'servers', 'paths', 'components']);
    expect(served).toEqual({ ...document, servers });
  });

  it('give the document itself when no base is set', () => {
    const served = servedOpenApi(openApiText(document), undefined);
    expect(served).toBe(JSON.stringify(document));
  });

  it('refuse a document without paths or anything after info', () => {
    const { openapi, info } = document;
    expect(() => openApiText({ openapi, info } as OpenApiDocument)).toThrow(/without paths/);
  });
});
