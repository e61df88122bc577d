/**
 * node:http as its module object, not through `import … from 'node:http'`. An ESM import makes Node
 * build the module's ESM namespace, which reads every export, among them the getters (WebSocket,
 * CloseEvent, MessageEvent) that load Node's fetch implementation, undici: 30–50 ms of each Lambda
 * cold start, in functions that never use fetch (docs/benchmarks.md, "fourteenth pass"). The module
 * object loads nothing more. Types still come from `import type`, which is erased.
 */
export const nodeHttp = process.getBuiltinModule('node:http');
