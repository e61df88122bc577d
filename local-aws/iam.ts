/**
 * The part of IAM policy evaluation start:synth enforces: does a function's role allow an action on
 * a resource, in a request's context? An explicit Deny wins, then any Allow whose actions and
 * resources match (`*` and `?` wildcards, case-insensitive actions as IAM has them) and whose
 * conditions hold; nothing else is allowed. Conditions: the String operators, alone or with
 * ForAllValues/ForAnyValue, over the context's keys (dynamodb:LeadingKeys for the table); any other
 * operator does not hold, so a grant this file cannot read fails here rather than passing by mistake.
 */
import type { PolicyStatement } from './deployment-model.js';

/** Condition keys of one request and their values (a multi-valued key has several). */
export type RequestContext = ReadonlyMap<string, readonly string[]>;

const list = (value: string | string[]) => (Array.isArray(value) ? value : [value]);

function wildcard(pattern: string, flags = ''): RegExp {
  const escaped = pattern
    .replace(/[.+^${}()|[\]\\]/g, '\\$&')
    .replace(/\*/g, '.*')
    .replace(/\?/g, '.');
  return new RegExp(`^${escaped}$`, flags);
}

const STRING_TESTS: ReadonlyMap<string, (value: string, pattern: string) => boolean> = new Map([
  ['StringEquals', (value: string, pattern: string) => value === pattern],
  ['StringLike', (value: string, pattern: string) => wildcard(pattern).test(value)],
]);

/** One condition operator over one key: `ForAllValues:StringLike`, `StringEquals`, ... */
function conditionHolds(
  operator: string,
  values: readonly string[] | undefined,
  patterns: string[],
): boolean {
  const [qualifier, name] = operator.includes(':') ? operator.split(':', 2) : [undefined, operator];
  const test = STRING_TESTS.get(name as string);
  if (!test) return false;
  const matches = (value: string) => patterns.some((pattern) => test(value, pattern));
  const present = values ?? [];
  switch (qualifier) {
    case 'ForAllValues':
      return present.every(matches);
    case 'ForAnyValue':
      return present.some(matches);
    case undefined:
      return present.length === 1 && matches(present[0] as string);
    default:
      return false;
  }
}

function conditionsHold(statement: PolicyStatement, context: RequestContext): boolean {
  return Object.entries(statement.Condition ?? {}).every(([operator, keys]) =>
    Object.entries(keys).every(([key, patterns]) =>
      conditionHolds(operator, context.get(key), list(patterns)),
    ),
  );
}

const matches = (statement: PolicyStatement, action: string, resource: string) =>
  list(statement.Action).some((pattern) => wildcard(pattern, 'i').test(action)) &&
  list(statement.Resource).some((pattern) => wildcard(pattern).test(resource));

export function isAllowed(
  policy: readonly PolicyStatement[],
  action: string,
  resource: string,
  context: RequestContext = new Map(),
): boolean {
  const applies = (statement: PolicyStatement) =>
    matches(statement, action, resource) && conditionsHold(statement, context);
  if (policy.some((statement) => statement.Effect === 'Deny' && applies(statement))) return false;
  return policy.some((statement) => statement.Effect === 'Allow' && applies(statement));
}
