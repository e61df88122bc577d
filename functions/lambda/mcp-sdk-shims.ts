/**
 * The MCP SDK's Node shims as Lambda bundles take them (lambda-bundle-options.ts): its default JSON
 * Schema validator is the one without Ajv, which every /mcp server is given anyway
 * (shared/mcp/mcp-endpoint.ts), so the bundle neither carries nor evaluates Ajv (290 KiB).
 */

export { default as process } from 'node:process';
export { CfWorkerJsonSchemaValidator as DefaultJsonSchemaValidator } from '@modelcontextprotocol/server/validators/cf-worker';
