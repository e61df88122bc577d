/**
 * The client's address as the runtime knows it, from the bindings each Hono adaptor passes the app:
 * the socket's peer under `npm start` (@hono/node-server: `incoming`), API Gateway's `sourceIp`
 * on Lambda (hono/aws-lambda: `requestContext`). Never X-Forwarded-For: any client can write it.
 * Undefined where neither exists (`app.request()` in tests).
 */
interface Bindings {
  incoming?: { socket?: { remoteAddress?: string } };
  requestContext?: { identity?: { sourceIp?: string } };
}

export function clientAddress(env: unknown): string | undefined {
  const bindings = (env ?? {}) as Bindings;
  return bindings.incoming?.socket?.remoteAddress ?? bindings.requestContext?.identity?.sourceIp;
}
