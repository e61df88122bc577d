/**
 * One nested stack of API routes: the resources and ANY methods of one route group's subtrees
 * (`/v1/<group>/...`, `/api/v2/<group>/...`, `/api/v2/ext/<group>/...`), each a Lambda proxy
 * integration to its function. The REST API and the mounts (`/v1`, `/api/v2`, `/api/v2/ext`) belong
 * to the main stack; this stack imports them by id.
 */
import { Duration, NestedStack, type NestedStackProps } from 'aws-cdk-lib';
import * as apigateway from 'aws-cdk-lib/aws-apigateway';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type { Construct } from 'constructs';
import { type FunctionPlan, integrationTimeoutSeconds } from './function-plan.js';
import { addRoutes } from './route-tree.js';
import { type Route, routeGroup } from './routes.js';

export interface RouteStackProps extends NestedStackProps {
  restApiId: string;
  rootResourceId: string;
  /** Mount path → its resource id in the main stack. */
  mounts: ReadonlyMap<string, string>;
  routes: readonly Route[];
  functions: ReadonlyMap<string, lambda.IFunction>;
  plans: ReadonlyMap<string, FunctionPlan>;
}

export class RouteStack extends NestedStack {
  readonly methods: apigateway.Method[];

  constructor(scope: Construct, id: string, props: RouteStackProps) {
    super(scope, id, props);
    const api = apigateway.RestApi.fromRestApiAttributes(this, 'Api', {
      restApiId: props.restApiId,
      rootResourceId: props.rootResourceId,
    });
    const mounts = new Map<string, apigateway.IResource>();
    for (const route of props.routes) {
      const mount = routeGroup(route.path)?.mount;
      if (!mount) throw new Error(`Route ${route.path} is not below a mount.`);
      if (mounts.has(mount)) continue;
      const resourceId = props.mounts.get(mount);
      if (!resourceId) throw new Error(`Mount ${mount} has no resource.`);
      mounts.set(
        mount,
        apigateway.Resource.fromResourceAttributes(this, `Mount${mounts.size}`, {
          restApi: api,
          resourceId,
          path: mount,
        }),
      );
    }
    this.methods = addRoutes({
      routes: props.routes,
      resourceFor: (route) => {
        const mount = routeGroup(route.path)?.mount as string;
        return { base: mounts.get(mount) as apigateway.IResource, basePath: mount };
      },
      integrationFor: integrations(props),
    });
  }
}

/**
 * One integration per function, shared by its routes in a stack. `scopePermissionToMethod: false`
 * gives each function one API-scoped invoke permission per stack instead of one (or two, with the
 * console's test invoke) per method: 115 methods would otherwise add 115 to 230 permissions.
 *
 * Every integration streams (InvokeWithResponseStream, as functions/lambda/rest-adapter.ts answers):
 * a buffered answer is capped at 6 MB, which a legal website answer exceeds, and a streamed one may
 * take longer than 29 s without an account quota increase.
 */
export function integrations(props: {
  functions: ReadonlyMap<string, lambda.IFunction>;
  plans: ReadonlyMap<string, FunctionPlan>;
}): (route: Route) => apigateway.Integration {
  const made = new Map<string, apigateway.LambdaIntegration>();
  return (route) => {
    const existing = made.get(route.functionName);
    if (existing) return existing;
    const fn = props.functions.get(route.functionName);
    const plan = props.plans.get(route.functionName);
    if (!fn || !plan)
      throw new Error(`Route ${route.path} names ${route.functionName}, which is not deployed.`);
    const integration = new apigateway.LambdaIntegration(fn, {
      scopePermissionToMethod: false,
      responseTransferMode: apigateway.ResponseTransferMode.STREAM,
      timeout: Duration.seconds(integrationTimeoutSeconds(plan)),
    });
    made.set(route.functionName, integration);
    return integration;
  };
}
