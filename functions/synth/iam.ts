/**
 * The part of IAM policy evaluation start:synth enforces: does a function's role allow an action on
 * a resource? An explicit Deny wins, then any Allow whose actions and resources match (`*` and `?`
 * wildcards, case-insensitive actions as IAM has them); nothing else is allowed. Conditions are not
 * evaluated here: a statement with a Condition does not grant (the local endpoints that enforce
 * permissions, Lambda invoke and Secrets Manager, get unconditioned grants from infra/).
 */
import type { PolicyStatement } from './deployment-model.js';

const list = (value: string | string[]) => (Array.isArray(value) ? value : [value]);

function wildcard(pattern: string, flags = ''): RegExp {
  const escaped = pattern
    .replace(/[.+^${}()|[\]\\]/g, '\\$&')
    .replace(/\*/g, '.*')
    .replace(/\?/g, '.');
  return new RegExp(`^${escaped}$`, flags);
}

const matches = (statement: PolicyStatement, action: string, resource: string) =>
  list(statement.Action).some((pattern) => wildcard(pattern, 'i').test(action)) &&
  list(statement.Resource).some((pattern) => wildcard(pattern).test(resource));

export function isAllowed(policy: readonly PolicyStatement[], action: string, resource: string): boolean {
  if (policy.some((statement) => statement.Effect === 'Deny' && matches(statement, action, resource))) {
    return false;
  }
  return policy.some(
    (statement) =>
      statement.Effect === 'Allow' &&
      statement.Condition === undefined &&
      matches(statement, action, resource),
  );
}
