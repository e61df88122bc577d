/**
 * The interactive reference at /docs, whose assets come from the installed swagger-ui-dist package
 * (no CDN, so it works behind firewalls and offline), the OpenAPI document it reads at
 * /openapi.json, and the index at /. Apart from the building of the document (openapi.ts), so that
 * a function serving a document made at build time loads neither the catalog nor its schemas.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { OpenApiGeneratorV31 } from '@asteasolutions/zod-to-openapi';
import type { Env, Hono } from 'hono';
import Negotiator from 'negotiator';
import { BUNDLED_DOCS_DIRECTORY } from '../../schemas/function-conventions.js';
import { besideBundle } from '../bundle-assets.js';
import { lazy } from '../lazy.js';
import { SERVICE_VERSION } from '../version.js';
import { contentSecurityPolicy, pageSecurityHeaders } from './page-security.js';

export type OpenApiDocument = ReturnType<OpenApiGeneratorV31['generateDocument']>;

/**
 * The OpenAPI document as JSON text, cut where a deployment's `servers` goes (after `info`, as
 * OpenAPI lists it). Kept as text, the 875 KB document is served without a parse or a stringify,
 * which cost every /openapi.json 6 ms of CPU, and the pages function's cold start 10 ms
 * (docs/benchmarks.md, fifth pass).
 */
export interface OpenApiText {
  /** `{"openapi":…,"info":{…}` */
  beforeServers: string;
  /** `"paths":{…},…}` */
  afterServers: string;
}

/** The text of a document without `servers`. */
export function openApiText({ openapi, info, ...rest }: OpenApiDocument): OpenApiText {
  const afterServers = JSON.stringify(rest).slice(1);
  if (afterServers === '}') throw new Error('An OpenAPI document without paths has nothing to serve.');
  return { beforeServers: JSON.stringify({ openapi, info }).slice(0, -1), afterServers };
}

/** The document's text naming `base` as its one server (none when unset). */
export function servedOpenApi(
  { beforeServers, afterServers }: OpenApiText,
  base: string | undefined,
): string {
  const servers = base ? `,"servers":${JSON.stringify([{ url: base }])}` : '';
  return `${beforeServers}${servers},${afterServers}`;
}

export interface DocumentationSettings {
  /** The base URL clients use (`PUBLIC_BASE_URL`), published as the document's one server. */
  publicBaseUrl?: string;
  /**
   * The document without `servers`, made on first request: openapi.ts builds it from a registry of
   * the documented routes (mount-documentation.ts), or it was built at `npm run build` (the pages
   * function).
   */
  document: () => OpenApiText | Promise<OpenApiText>;
}

export function serveDocumentation<E extends Env>(app: Hono<E>, settings: DocumentationSettings): void {
  const document = lazy(async () => servedOpenApi(await settings.document(), settings.publicBaseUrl));
  app.get('/openapi.json', async (c) =>
    c.body(await document(), 200, { 'Content-Type': 'application/json' }),
  );
  const headers = pageSecurityHeaders(docsPolicy(settings.publicBaseUrl));
  app.get('/docs', (c) => c.html(docsPage, 200, headers));
  serveRoot(app, settings.publicBaseUrl ?? '');
  app.get('/docs/assets/:file', async (c) => {
    // The name comes from the request: only a Map answers exactly the names it was given.
    const file = c.req.param('file');
    const type = swaggerAssets.get(file);
    if (!type) return c.notFound();
    const body = await readFile(join(swaggerUiDirectory(), file));
    return c.body(body, 200, { 'Content-Type': type, 'Cache-Control': 'public, max-age=86400' });
  });
}

/**
 * GET / (and HEAD): where to start, free and without a key. A browser (which prefers HTML) is sent
 * to the interactive reference; every other client gets a small JSON index of the service's
 * entry points, absolute under the public base URL.
 */
function serveRoot<E extends Env>(app: Hono<E>, base: string): void {
  const index = {
    name: 'lookup-service',
    version: SERVICE_VERSION,
    docs: `${base}/docs`,
    openapi: `${base}/openapi.json`,
    mcp: `${base}/mcp`,
    health: `${base}/healthz`,
  };
  app.get('/', (c) => {
    c.header('Vary', 'Accept');
    const accept = c.req.header('accept') ?? '*/*';
    const preferred = new Negotiator({ headers: { accept } }).mediaType(['application/json', 'text/html']);
    if (preferred === 'text/html') return c.redirect(index.docs, 302);
    return c.json(index);
  });
}

export const swaggerAssets: ReadonlyMap<string, string> = new Map([
  ['swagger-ui.css', 'text/css; charset=utf-8'],
  ['swagger-ui-bundle.js', 'text/javascript; charset=utf-8'],
  ['favicon-32x32.png', 'image/png'],
]);

/** The pages function carries the assets beside its bundle; from source, the package's own. */
export function swaggerUiDirectory(): string {
  return (
    besideBundle(BUNDLED_DOCS_DIRECTORY) ??
    dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'))
  );
}

/**
 * A Swagger UI plugin, run in the page: Swagger UI checks `pattern` with `new RegExp(pattern)`,
 * without the `u` flag JSON Schema assumes, so `\p{L}` reads as the letter `p` and every valid
 * username, slug and name is refused before it is sent. After Swagger UI's own check of an
 * operation's parameters, this replaces its pattern verdicts with the check JSON Schema means
 * (`new RegExp(pattern, 'u')`); every other verdict stands, and the API's own validation stays the
 * authority. It hooks the validateParams action that the Execute button dispatches.
 */
const unicodePatternsPlugin = `function UnicodePatterns() {
  var PREFIX = 'Value must follow pattern ';
  return {
    statePlugins: {
      spec: {
        actions: {
          checkUnicodePatterns: function (pathMethod, patterns) {
            return { type: 'docs_check_unicode_patterns', payload: { pathMethod: pathMethod, patterns: patterns } };
          },
        },
        reducers: {
          docs_check_unicode_patterns: function (state, action) {
            var patterns = action.payload.patterns;
            return state.updateIn(['meta', 'paths'].concat(action.payload.pathMethod, ['parameters']), function (parameters) {
              if (!parameters) return parameters;
              return parameters.map(function (entry, identifier) {
                var pattern = patterns.get(String(identifier).split('.hash-')[0]);
                if (pattern === undefined || !entry || !entry.get) return entry;
                var value = entry.get('value');
                var errors = entry.get('errors');
                if (!errors) return entry;
                errors = errors.filter(function (error) {
                  return !(typeof error === 'string' && error.indexOf(PREFIX) === 0);
                });
                if (typeof value === 'string' && value !== '' && !new RegExp(pattern, 'u').test(value)) {
                  errors = errors.push(PREFIX + pattern);
                }
                return entry.set('errors', errors);
              });
            });
          },
        },
        wrapActions: {
          validateParams: function (original, system) {
            return function (pathMethod) {
              var result = original.apply(null, arguments);
              var operation = system.specSelectors.operationWithMeta(pathMethod[0], pathMethod[1]);
              var patterns = new Map();
              operation.get('parameters').forEach(function (parameter) {
                var pattern = parameter.getIn(['schema', 'pattern']);
                if (typeof pattern === 'string') patterns.set(parameter.get('in') + '.' + parameter.get('name'), pattern);
              });
              system.specActions.checkUnicodePatterns(pathMethod, patterns);
              return result;
            };
          },
        },
      },
    },
  };
}`;

/**
 * A Swagger UI plugin, run in the page: Swagger UI resolves an operation's references when it is
 * expanded, and for OpenAPI 3.1 its resolver parses the whole document again each time
 * (swagger-api/swagger-ui#10748): with this document, seconds per click. Every reference here is
 * local (`#/components/...`), so the subtree is resolved in place by following JSON pointers, with
 * `$$ref` kept where Swagger UI names models by it and a reference cycle left as it is.
 */
const localReferencesPlugin = `function LocalReferences() {
  function unescape(token) { return token.replace(/~1/g, '/').replace(/~0/g, '~'); }
  function target(root, ref) {
    if (ref.indexOf('#/') !== 0) return undefined;
    return ref.slice(2).split('/').reduce(function (node, token) {
      return node == null ? undefined : node[unescape(token)];
    }, root);
  }
  function resolve(root, node, trail) {
    if (Array.isArray(node)) return node.map(function (item) { return resolve(root, item, trail); });
    if (!node || typeof node !== 'object') return node;
    var copy = {};
    Object.keys(node).forEach(function (key) { if (key !== '$ref') copy[key] = resolve(root, node[key], trail); });
    var ref = node.$ref;
    if (typeof ref !== 'string') return copy;
    var found = trail.indexOf(ref) === -1 ? target(root, ref) : undefined;
    if (found === undefined) { copy.$ref = ref; return copy; }
    var resolved = resolve(root, found, trail.concat([ref]));
    if (!resolved || typeof resolved !== 'object' || Array.isArray(resolved)) return resolved;
    return Object.assign({ $$ref: ref }, resolved, copy);
  }
  return {
    fn: {
      resolveSubtree: function (spec, path) {
        var subtree = path.reduce(function (node, key) { return node == null ? undefined : node[key]; }, spec);
        return Promise.resolve({ spec: resolve(spec, subtree, []), errors: [] });
      },
    },
  };
}`;

const docsScript = `
${unicodePatternsPlugin}
${localReferencesPlugin}
window.ui = SwaggerUIBundle({ url: '/openapi.json', dom_id: '#swagger-ui', plugins: [UnicodePatterns, LocalReferences] });
`;

/**
 * The reference page's Content-Security-Policy: Swagger UI's script from /docs/assets and the page's
 * one inline script by its hash, no forms. Its requests go to this origin (/openapi.json) and, for
 * "Try it out", to the document's server, `PUBLIC_BASE_URL`. Swagger UI styles its elements through
 * style attributes, which `'unsafe-inline'` lets through for styles alone.
 */
function docsPolicy(publicBaseUrl: string | undefined): string {
  const scriptHash = createHash('sha256').update(docsScript).digest('base64');
  return contentSecurityPolicy({
    scripts: [`'sha256-${scriptHash}'`],
    styles: ["'unsafe-inline'"],
    connects: publicBaseUrl ? [new URL(publicBaseUrl).origin] : [],
    forms: [],
  });
}

const docsPage = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Lookup service API reference</title>
<link rel="icon" href="/docs/assets/favicon-32x32.png">
<link rel="stylesheet" href="/docs/assets/swagger-ui.css">
</head>
<body>
<div id="swagger-ui"></div>
<script src="/docs/assets/swagger-ui-bundle.js"></script>
<script>${docsScript}</script>
</body>
</html>`;
