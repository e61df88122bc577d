/**
 * Validates a request's parameters against its operation's catalog schema, for every transport:
 * REST query strings as received (repeated names are possible), an identifier a /api/v2 path carries,
 * and MCP tool arguments (a JSON object). Values must be text first (decode-query.ts): what is not
 * text is refused here, before admission, whatever the transport. Every refusal is an
 * `invalid_request` with details using the spec's detail codes, one detail per cause, naming each
 * parameter as the client sent it. Parameter names come from the request, so they are only ever
 * looked up in Maps or with own-property checks: `constructor` and `__proto__` are names like any
 * other here.
 */
import type * as z from 'zod';
import { type DetailCode, type ErrorDetail, MAX_ERROR_DETAILS } from '../../schemas/errors.js';
import type { OperationDefinition, OperationVariant } from '../../schemas/operation-definition.js';
import { InvalidRequestError } from '../errors.js';
import {
  type DecodedText,
  decodePathSegment,
  decodeQuery,
  describeProblem,
  type TextProblem,
  textProblem,
} from './decode-query.js';
import { printableField, quoteInput } from './public-response.js';

export type RawInput =
  | {
      kind: 'query';
      /** The query string as received, still percent-encoded (URLSearchParams would decode it lossily). */
      query: string;
      pathIdentifier?: PathIdentifier;
    }
  | { kind: 'arguments'; values: Record<string, unknown> };

/** An identifier a path carries (`/api/v2/profiles/{public_identifier}`), as received. */
export interface PathIdentifier {
  /** The path parameter's name as the listing spells it: details name it so. */
  name: string;
  /** The operation's identifier it fills (`username`). */
  parameter: string;
  /** The path segment as received, still percent-encoded. */
  raw: string;
}

/** One value as received: a value to validate, or what keeps it from being text. */
type Received = { value: unknown; problem?: undefined } | { problem: TextProblem };

/**
 * How a parameter is named in details: a path parameter by its own name (`labels`), others as sent,
 * printably. Functions of the module rather than closures per request: every call of every
 * transport passes here.
 */
function labelOf(labels: ReadonlyMap<string, string>, name: string): string {
  return labels.get(name) ?? printableField(name);
}

export function validateInput(
  operation: OperationDefinition,
  raw: RawInput,
  variant?: OperationVariant,
): unknown {
  const details: ErrorDetail[] = [];
  const { received, labels } = receivedValues(raw, details);
  const values = collectValues(operation, received, details, labels);
  const reported = new Set(details.map((detail) => detail.field));

  const identifierDetail = checkIdentifiers(operation, received, variant, labels, raw.kind);
  if (identifierDetail) {
    details.push(identifierDetail);
    for (const name of operation.identifiers) reported.add(labelOf(labels, name));
  }

  const parsed = operation.query.safeParse(Object.fromEntries(values));
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      const name = String(issue.path[0] ?? 'query');
      const field = labelOf(labels, name);
      // One cause, one detail: a repeated, blank or miscounted parameter is already reported.
      if (reported.has(field)) continue;
      reported.add(field);
      details.push(toDetail(name, field, issue));
    }
  }
  if (details.length > 0) throw new InvalidRequestError(details.slice(0, MAX_ERROR_DETAILS));
  return (parsed as { data: unknown }).data;
}

/**
 * Every name the request sent, with all the values sent under it; names that are not text, and an
 * identifier sent in the query of a path that carries it, become details instead.
 */
function receivedValues(
  raw: RawInput,
  details: ErrorDetail[],
): { received: Map<string, Received[]>; labels: Map<string, string> } {
  const received = new Map<string, Received[]>();
  const labels = new Map<string, string>();
  if (raw.kind === 'arguments') {
    for (const name of Object.keys(raw.values)) {
      const value = raw.values[name];
      const problem = typeof value === 'string' ? textProblem(value) : undefined;
      addReceived(received, name, problem ? { problem } : { value });
    }
    return { received, labels };
  }

  const { pathIdentifier } = raw;
  if (pathIdentifier) {
    labels.set(pathIdentifier.parameter, pathIdentifier.name);
    addReceived(received, pathIdentifier.parameter, fromDecoded(decodePathSegment(pathIdentifier.raw)));
  }
  const refused = new Set<string>();
  for (const { rawName, name, value } of decodeQuery(raw.query)) {
    if (name.problem) {
      // Named as sent, still percent-encoded: printable, and what the client can find in its URL.
      refuseOnce(refused, details, {
        field: printableField(rawName),
        code: 'invalid_format',
        message: `The parameter name ${quoteInput(rawName, 64)} ${describeProblem(name.problem)}.`,
      });
    } else if (pathIdentifier && name.text === pathIdentifier.parameter) {
      refuseOnce(refused, details, {
        field: name.text,
        code: 'unknown_parameter',
        message:
          `This path carries ${name.text} as its path parameter {${pathIdentifier.name}}; ` +
          `remove ${name.text} from the query.`,
      });
    } else {
      addReceived(received, name.text, fromDecoded(value));
    }
  }
  return { received, labels };
}

/** One detail per refused parameter name, however often it was sent. */
function refuseOnce(refused: Set<string>, details: ErrorDetail[], detail: ErrorDetail): void {
  if (refused.has(detail.field)) return;
  refused.add(detail.field);
  details.push(detail);
}

function addReceived(received: Map<string, Received[]>, name: string, value: Received): void {
  const values = received.get(name);
  if (values) values.push(value);
  else received.set(name, [value]);
}

function fromDecoded(decoded: DecodedText): Received {
  return decoded.problem ? { problem: decoded.problem } : { value: decoded.text };
}

/** The values to parse, by name; unknown, repeated, blank parameters and non-text become details instead. */
function collectValues(
  operation: OperationDefinition,
  received: Map<string, Received[]>,
  details: ErrorDetail[],
  labels: ReadonlyMap<string, string>,
): Map<string, unknown> {
  const values = new Map<string, unknown>();
  for (const [name, all] of received) {
    const field = labelOf(labels, name);
    const [only] = all;
    if (!Object.hasOwn(operation.query.shape, name)) {
      const hints = operation.parameterHints ?? {};
      const message = Object.hasOwn(hints, name) ? hints[name] : undefined;
      details.push({ field, code: 'unknown_parameter', message: message ?? `Unknown parameter ${field}.` });
    } else if (all.length > 1 || !only) {
      details.push({ field, code: 'repeated_parameter', message: `Send ${field} at most once.` });
    } else if (only.problem) {
      details.push({ field, code: 'invalid_format', message: `${field} ${describeProblem(only.problem)}.` });
    } else if (typeof only.value === 'string' && only.value.trim() === '') {
      details.push({ field, code: 'invalid_value', message: `${field} must not be empty or blank.` });
    } else {
      values.set(name, only.value);
    }
  }
  return values;
}

/**
 * Exactly one identifier per request (SPEC "Profiles" rule 1), on every path that takes one. A
 * repeated identifier counts as sent: its detail is `repeated_parameter`, not a miscount too. The
 * message names what was received, so a client sees which parameter to remove.
 */
function checkIdentifiers(
  operation: OperationDefinition,
  received: Map<string, unknown[]>,
  variant: OperationVariant | undefined,
  labels: ReadonlyMap<string, string>,
  kind: RawInput['kind'],
): ErrorDetail | undefined {
  const { identifiers } = operation;
  if (identifiers.length === 0) return undefined;
  const present = identifiers.filter((name) => received.has(name));
  const expected = variant?.identifier;
  if (present.length === 1 && (expected === undefined || present[0] === expected)) return undefined;
  const label = (name: string) => labelOf(labels, name);
  if (expected !== undefined || identifiers.length === 1) {
    const only = expected ?? (identifiers[0] as string);
    const identifier = label(only);
    const others = present.filter((name) => name !== only).map(label);
    const rule = `This ${kind === 'query' ? 'path' : 'tool'} takes exactly one identifier, ${identifier}`;
    const message =
      others.length === 0
        ? `${rule}; none was sent.`
        : present.includes(only)
          ? `${rule}; ${listed(others)} ${others.length === 1 ? 'was' : 'were'} sent as well: remove ${others.length === 1 ? 'it' : 'them'}.`
          : `${rule}, and received ${listed(others)} instead: send ${identifier} (the other identifiers have paths of their own).`;
    return { field: identifier, code: 'identifier_count', message };
  }
  const choice = `Send exactly one of ${identifiers.map(label).join(', ')}`;
  return {
    field: identifiers.join('|'),
    code: 'identifier_count',
    message:
      present.length === 0
        ? `${choice}; none was sent.`
        : `${choice}; received ${listed(present.map(label))}: keep one and remove the others.`,
  };
}

/** `a`, `a and b`, `a, b and c`. */
function listed(names: readonly string[]): string {
  return names.length <= 1 ? names.join('') : `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`;
}

function toDetail(name: string, field: string, issue: z.core.$ZodIssue): ErrorDetail {
  return { field, code: detailCode(issue), message: detailMessage(name, field, issue) };
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

/**
 * The schema's message, with the parameter named as the request named it (a path parameter by its own
 * name). A message that names its parameter gets the request's name for it; one that starts in lower
 * case is said of the parameter ("is not a calendar date": a schema several parameters share cannot
 * name them) and follows its name as a sentence does; zod's own messages are capitalized and quoted.
 */
function detailMessage(name: string, field: string, issue: z.core.$ZodIssue): string {
  if (issue.input === undefined && (issue.code === 'invalid_type' || issue.code === 'invalid_value'))
    return `${field} is required.`;
  if (issue.message.startsWith(name)) return `${field}${issue.message.slice(name.length)}`;
  return /^\p{Ll}/u.test(issue.message) ? `${field} ${issue.message}` : `${field}: ${issue.message}`;
}
