/**
 * Validates a request's parameters against its operation's catalog schema, for every transport:
 * REST query strings (repeated names are possible) and MCP tool arguments (a JSON object).
 * Every refusal is an `invalid_request` with details using the spec's detail codes.
 */
import type { z } from 'zod';
import type { OperationDefinition, OperationVariant } from '../../schemas/catalog.js';
import { type DetailCode, type ErrorDetail, MAX_ERROR_DETAILS } from '../../schemas/errors.js';
import { InvalidRequestError } from '../errors.js';

export type RawInput =
  | { kind: 'query'; params: URLSearchParams }
  | { kind: 'arguments'; values: Record<string, unknown> };

export function validateInput(
  operation: OperationDefinition,
  raw: RawInput,
  variant?: OperationVariant,
): unknown {
  const details: ErrorDetail[] = [];
  const known = new Set(Object.keys(operation.query.shape));
  const values = collectValues(operation, raw, known, details);

  const identifierDetail = checkIdentifiers(operation, values, variant);
  if (identifierDetail) details.push(identifierDetail);

  const parsed = operation.query.safeParse(values);
  if (!parsed.success) {
    const reported = new Set(details.map((detail) => detail.field));
    for (const issue of parsed.error.issues) {
      const field = String(issue.path[0] ?? 'query');
      // A repeated parameter, or an absent identifier, is already reported.
      if (reported.has(field)) continue;
      if (identifierDetail && operation.identifiers.includes(field) && values[field] === undefined) continue;
      details.push(toDetail(field, issue));
    }
  }
  if (details.length > 0) throw new InvalidRequestError(details.slice(0, MAX_ERROR_DETAILS));
  return (parsed as { data: unknown }).data;
}

function collectValues(
  operation: OperationDefinition,
  raw: RawInput,
  known: Set<string>,
  details: ErrorDetail[],
): Record<string, unknown> {
  const values: Record<string, unknown> = {};
  const names = raw.kind === 'query' ? new Set(raw.params.keys()) : new Set(Object.keys(raw.values));
  for (const name of names) {
    const field = printableField(name);
    if (!known.has(name)) {
      const hint = operation.parameterHints?.[name] ?? `Unknown parameter ${field}.`;
      details.push({ field, code: 'unknown_parameter', message: hint });
      continue;
    }
    if (raw.kind === 'arguments') {
      values[name] = raw.values[name];
      continue;
    }
    const all = raw.params.getAll(name);
    if (all.length > 1) {
      details.push({ field, code: 'repeated_parameter', message: `Send ${field} at most once.` });
      continue;
    }
    values[name] = all[0];
  }
  return values;
}

function checkIdentifiers(
  operation: OperationDefinition,
  values: Record<string, unknown>,
  variant: OperationVariant | undefined,
): ErrorDetail | undefined {
  if (operation.identifiers.length === 0) return undefined;
  const present = operation.identifiers.filter((name) => values[name] !== undefined);
  const expected = variant?.identifier;
  if (present.length === 1 && (expected === undefined || present[0] === expected)) return undefined;
  const choice = expected ?? operation.identifiers.join(', ');
  return {
    field: expected ?? operation.identifiers.join('|'),
    code: 'identifier_count',
    message: expected
      ? `Send exactly one identifier on this path: ${expected}.`
      : `Send exactly one of: ${choice}.`,
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
  if (issue.code === 'invalid_type' && issue.input === undefined) return `${field} is required.`;
  const message = issue.message.startsWith(field) ? issue.message : `${field}: ${issue.message}`;
  return message.slice(0, 512);
}

/** Detail fields must be 1 to 128 printable characters; unknown names are echoed in that form. */
function printableField(name: string): string {
  const printable = name.replace(/[^\x20-\x7e]/g, '?').slice(0, 128);
  return printable === '' ? '?' : printable;
}
