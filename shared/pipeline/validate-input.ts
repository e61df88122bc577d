/**
 * Validates a request's parameters against its operation's catalog schema, for every transport:
 * REST query strings (repeated names are possible) and MCP tool arguments (a JSON object).
 * Every refusal is an `invalid_request` with details using the spec's detail codes, one detail per
 * cause. Parameter names come from the request, so they are only ever looked up in Maps or with own-
 * property checks: `constructor` and `__proto__` are names like any other here.
 */
import type { z } from 'zod';
import type { OperationDefinition, OperationVariant } from '../../schemas/catalog.js';
import { type DetailCode, type ErrorDetail, MAX_ERROR_DETAILS } from '../../schemas/errors.js';
import { InvalidRequestError } from '../errors.js';
import { printableField } from './public-response.js';

export type RawInput =
  | { kind: 'query'; params: URLSearchParams }
  | { kind: 'arguments'; values: Record<string, unknown> };

export function validateInput(
  operation: OperationDefinition,
  raw: RawInput,
  variant?: OperationVariant,
): unknown {
  const details: ErrorDetail[] = [];
  const received = receivedValues(raw);
  const values = collectValues(operation, received, details);
  const reported = new Set(details.map((detail) => detail.field));

  const identifierDetail = checkIdentifiers(operation, received, variant);
  if (identifierDetail) {
    details.push(identifierDetail);
    for (const name of operation.identifiers) reported.add(name);
  }

  const parsed = operation.query.safeParse(Object.fromEntries(values));
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      const field = String(issue.path[0] ?? 'query');
      // One cause, one detail: a repeated, blank or miscounted parameter is already reported.
      if (reported.has(field)) continue;
      reported.add(field);
      details.push(toDetail(field, issue));
    }
  }
  if (details.length > 0) throw new InvalidRequestError(details.slice(0, MAX_ERROR_DETAILS));
  return (parsed as { data: unknown }).data;
}

/** Every name the request sent, with all the values sent under it. */
function receivedValues(raw: RawInput): Map<string, unknown[]> {
  const received = new Map<string, unknown[]>();
  if (raw.kind === 'query') {
    for (const [name, value] of raw.params) received.set(name, [...(received.get(name) ?? []), value]);
  } else {
    for (const name of Object.keys(raw.values)) received.set(name, [raw.values[name]]);
  }
  return received;
}

/** The values to parse, by name; unknown, repeated and blank parameters become details instead. */
function collectValues(
  operation: OperationDefinition,
  received: Map<string, unknown[]>,
  details: ErrorDetail[],
): Map<string, unknown> {
  const values = new Map<string, unknown>();
  for (const [name, all] of received) {
    const field = printableField(name);
    if (!Object.hasOwn(operation.query.shape, name)) {
      const hints = operation.parameterHints ?? {};
      const message = Object.hasOwn(hints, name) ? hints[name] : undefined;
      details.push({ field, code: 'unknown_parameter', message: message ?? `Unknown parameter ${field}.` });
    } else if (all.length > 1) {
      details.push({ field, code: 'repeated_parameter', message: `Send ${field} at most once.` });
    } else if (typeof all[0] === 'string' && all[0].trim() === '') {
      details.push({ field, code: 'invalid_value', message: `${field} must not be empty or blank.` });
    } else {
      values.set(name, all[0]);
    }
  }
  return values;
}

/**
 * Exactly one identifier per request (SPEC "Profiles" rule 1), on every path that takes one. A
 * repeated identifier counts as sent: its detail is `repeated_parameter`, not a miscount too.
 */
function checkIdentifiers(
  operation: OperationDefinition,
  received: Map<string, unknown[]>,
  variant: OperationVariant | undefined,
): ErrorDetail | undefined {
  if (operation.identifiers.length === 0) return undefined;
  const present = operation.identifiers.filter((name) => received.has(name));
  const expected = variant?.identifier;
  if (present.length === 1 && (expected === undefined || present[0] === expected)) return undefined;
  if (expected !== undefined || operation.identifiers.length === 1) {
    const identifier = expected ?? (operation.identifiers[0] as string);
    return {
      field: identifier,
      code: 'identifier_count',
      message: `Send exactly one identifier on this path: ${identifier}.`,
    };
  }
  return {
    field: operation.identifiers.join('|'),
    code: 'identifier_count',
    message: `Send exactly one of: ${operation.identifiers.join(', ')}.`,
  };
}

function toDetail(field: string, issue: z.core.$ZodIssue): ErrorDetail {
  return { field, code: detailCode(issue), message: detailMessage(field, issue) };
}

function detailCode(issue: z.core.$ZodIssue): DetailCode {
  switch (issue.code) {
    case 'too_big':
      return issue.origin === 'string' ? 'too_long' : 'invalid_value';
    case 'invalid_format':
      return 'invalid_format';
    case 'custom':
      return (issue.params?.detailCode as DetailCode | undefined) ?? 'invalid_value';
    default:
      return 'invalid_value';
  }
}

function detailMessage(field: string, issue: z.core.$ZodIssue): string {
  if (issue.input === undefined && (issue.code === 'invalid_type' || issue.code === 'invalid_value'))
    return `${field} is required.`;
  return issue.message.startsWith(field) ? issue.message : `${field}: ${issue.message}`;
}
