/**
 * Turns routes into API Gateway resources and ANY methods below a base resource, creating each path
 * segment once however many routes share it.
 */
import type * as apigateway from 'aws-cdk-lib/aws-apigateway';
import type { Route } from './routes.js';

export interface RouteTreeInput {
  routes: readonly Route[];
  /** The resource a route's path starts below, and that resource's own path. */
  resourceFor: (route: Route) => { base: apigateway.IResource; basePath: string };
  integrationFor: (route: Route) => apigateway.Integration;
}

export function addRoutes(input: RouteTreeInput): apigateway.Method[] {
  const resources = new Map<string, apigateway.IResource>();
  const resourceAt = (base: apigateway.IResource, basePath: string, path: string): apigateway.IResource => {
    if (path === basePath) return base;
    const known = resources.get(path);
    if (known) return known;
    const cut = path.lastIndexOf('/');
    const parent = resourceAt(base, basePath, cut === 0 ? '/' : path.slice(0, cut));
    const resource = parent.addResource(path.slice(cut + 1));
    resources.set(path, resource);
    return resource;
  };
  return input.routes.map((route) => {
    const { base, basePath } = input.resourceFor(route);
    return resourceAt(base, basePath, route.path).addMethod('ANY', input.integrationFor(route));
  });
}
