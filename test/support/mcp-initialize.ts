/**
 * An MCP initialize sent as one POST, for the tests and benches that reach /mcp without an MCP
 * client (a bundle's first event, a service's challenge): its method, headers and JSON-RPC body.
 */
export const MCP_INITIALIZE_VERSION = '2025-06-18';

export function mcpInitialize(clientName: string, headers: Record<string, string> = {}) {
  return {
    method: 'POST' as const,
    headers: {
      'Content-Type': 'application/json',
      Accept: 'application/json, text/event-stream',
      ...headers,
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: {
        protocolVersion: MCP_INITIALIZE_VERSION,
        capabilities: {},
        clientInfo: { name: clientName, version: '1' },
      },
    }),
  };
}
