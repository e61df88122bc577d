/**
 * The OpenAPI 3.1 document, generated from the catalog (and the prices in force; each API family
 * registers its paths through api-binding.ts with the helpers here), and the
 * interactive reference at /docs, whose assets come from the installed swagger-ui-dist package:
 * no CDN, so it works behind firewalls and offline. Each path publishes exactly the parameters it
 * accepts, each with its entry's example, and patterns in JSON Schema's dialect.
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { OpenAPIHono } from '@hono/zod-openapi';
import type { Env } from 'hono';
import Negotiator from 'negotiator';
import type { z } from 'zod';
import { errorBodySchema } from '../../schemas/errors.js';
import { BUNDLED_DOCS_DIRECTORY } from '../../schemas/function-conventions.js';
import {
  defaultToolNames,
  exampleInput,
  type OperationDefinition,
  type OperationVariant,
  pathParameters,
} from '../../schemas/operation-definition.js';
import { besideBundle } from '../bundle-assets.js';
import { creditCount } from '../errors.js';
import { SERVICE_VERSION } from '../version.js';
import { publishJsonSchemaPatterns } from './json-schema-pattern.js';
import { type ErrorExampleContext, errorExamples, type NamedExamples } from './response-examples.js';

const headerSchema = (description: string) => ({ description, schema: { type: 'string' as const } });

export const successHeaders = (billed: boolean) => ({
  'X-Request-Id': headerSchema('Request id; equals meta.requestId of error bodies.'),
  'X-RateLimit-Limit': headerSchema('Requests admitted per rolling window.'),
  'X-RateLimit-Remaining': headerSchema('Requests still admitted now.'),
  'X-RateLimit-Reset': headerSchema('Whole seconds until the window is back to full capacity.'),
  'RateLimit-Policy': headerSchema(
    'The rate limit as an IETF structured field (draft-ietf-httpapi-ratelimit-headers-11): "lookups";q=<X-RateLimit-Limit>;w=<window seconds>.',
  ),
  RateLimit: headerSchema(
    'The rate limit now as an IETF structured field: "lookups";r=<X-RateLimit-Remaining>;t=<X-RateLimit-Reset>.',
  ),
  ...(billed
    ? {
        'X-Credits-Remaining': headerSchema(
          "Credit balance after this call; for a key with spend caps, the least of the balance and what is left of the key's caps.",
        ),
      }
    : {}),
});

/**
 * The parameters a path accepts, each with its example: a `/by-X` path takes its own identifier,
 * required, and none of the operation's other identifiers.
 */
export function documentedParameters(
  definition: OperationDefinition,
  variant: OperationVariant,
): [name: string, schema: z.ZodType][] {
  const examples = new Map(exampleInput(definition, variant));
  return pathParameters(definition, variant).map(({ name, schema }) => {
    const example = examples.get(name);
    return [name, example === undefined ? schema : schema.meta({ param: { example } })];
  });
}

type Registry = OpenAPIHono['openAPIRegistry'];
type SharedComponent = 'examples' | 'responses';

/** Each registry's shared components: the name of each distinct value, by its type and JSON text. */
const sharedComponents = new WeakMap<Registry, Map<string, string>>();

/**
 * A reference to the component of `type` holding `value`, registered under `name` (or `name-2`, …)
 * the first time the value is seen. Most error answers are the same on every path, and the variants
 * of an operation share their answer: the document carries each once, since its size is what
 * Swagger UI parses again on every expand.
 */
function shared(
  registry: Registry,
  type: SharedComponent,
  name: string,
  value: object,
  identity: unknown = value,
) {
  let names = sharedComponents.get(registry);
  if (!names) {
    names = new Map();
    sharedComponents.set(registry, names);
  }
  const key = `${type} ${JSON.stringify(identity)}`;
  let registered = names.get(key);
  if (registered === undefined) {
    const taken = new Set(names.values());
    registered = `${type}/${name}`;
    for (let count = 2; taken.has(registered); count++) registered = `${type}/${name}-${count}`;
    names.set(key, registered);
    registry.registerComponent(type, registered.slice(type.length + 1), value as never);
  }
  return { $ref: `#/components/${registered}` };
}

function sharedExamples(registry: Registry, examples: NamedExamples) {
  return Object.fromEntries(
    Object.entries(examples).map(([name, example]) => [name, shared(registry, 'examples', name, example)]),
  );
}

/**
 * The error responses of an operation, one per status it can answer besides 200, each with an
 * example of every code the operation answers with that status.
 */
export function errorResponses(registry: Registry, context: ErrorExampleContext) {
  return Object.fromEntries(
    context.definition.statuses
      .filter((status) => status !== 200)
      .map((status) => [String(status), errorResponseOf(registry, status, errorExamples(status, context))]),
  );
}

/**
 * A reference to the shared error response of `status` showing these examples (one per code):
 * paths that answer the same errors share one component.
 */
export function errorResponseOf(registry: Registry, status: number, examples: NamedExamples) {
  const references = sharedExamples(registry, examples);
  const response = {
    description: `Error: ${Object.keys(references).join(' or ')}.`,
    content: { 'application/json': { schema: errorBodySchema, examples: references } },
  };
  // The schema is the same on every error: the examples tell the responses apart.
  return shared(registry, 'responses', `error-${status}`, response, references);
}

/** The 200 example of an operation, shared by its paths: what the service answers to its example input. */
export function successExamples(
  registry: Registry,
  definition: OperationDefinition,
  value: unknown,
  prefix = '',
) {
  const name = `${prefix}${definition.id}`;
  const summary = `What the sample answers to the example parameters`;
  return { [name]: shared(registry, 'examples', name, { summary, value }) };
}

/** The price line of an operation's description. */
export function priceText(price: number): string {
  return `Price: ${price === 0 ? 'free' : creditCount(price)}.`;
}

export interface DocumentationSettings {
  /** The base URL clients use (`PUBLIC_BASE_URL`), published as the document's one server. */
  publicBaseUrl?: string;
  /** The operations the document describes: the description counts their MCP tools. */
  operations: readonly OperationDefinition[];
}

export function serveDocumentation<E extends Env>(
  app: OpenAPIHono<E>,
  settings: DocumentationSettings,
): void {
  const tools = defaultToolNames(settings.operations).length;
  let document: unknown;
  app.get('/openapi.json', (c) => {
    if (document === undefined) {
      document = app.getOpenAPI31Document({
        openapi: '3.1.0',
        info: {
          title: 'Professional data lookup service',
          version: SERVICE_VERSION,
          description:
            'Lookups of professional profiles, companies, email addresses and websites, billed in credits. ' +
            `AI agents reach the same data lookups as ${tools} MCP tools at POST /mcp (JSON-RPC 2.0 over ` +
            'Streamable HTTP, same key, prices and limits); tools/list describes them. The /api/v2 family ' +
            '(tag v2, key in X-API-Key) runs the same lookups on the same account with its own envelope.',
        },
        servers: settings.publicBaseUrl ? [{ url: settings.publicBaseUrl }] : undefined,
      });
      publishJsonSchemaPatterns(document);
    }
    return c.json(document);
  });
  app.get('/docs', (c) => c.html(docsPage));
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
function serveRoot<E extends Env>(app: OpenAPIHono<E>, base: string): void {
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
<script>
${unicodePatternsPlugin}
${localReferencesPlugin}
window.ui = SwaggerUIBundle({ url: '/openapi.json', dom_id: '#swagger-ui', plugins: [UnicodePatterns, LocalReferences] });
</script>
</body>
</html>`;
