/**
 * Strict decoding of the text a request carries in its URL (query strings and path segments) and
 * the check every parameter value passes, whatever its transport. URLSearchParams decodes the way a
 * browser must, which is lossy: invalid UTF-8 becomes U+FFFD and a broken escape stays literal, so a
 * lookup would run on text the client never sent. Here both are problems to report instead, as are
 * control characters (C0, DEL and C1) and, for strings that arrive already decoded (MCP arguments
 * as JSON), unpaired surrogates. Well-formed input decodes exactly as URLSearchParams decodes it.
 */

export type TextProblem =
  | { kind: 'broken_escape'; escape: string }
  | { kind: 'invalid_utf8' }
  | { kind: 'control_character'; codePoint: number }
  | { kind: 'unpaired_surrogate'; codePoint: number };

export type DecodedText = { text: string; problem?: undefined } | { text?: undefined; problem: TextProblem };

export interface QueryEntry {
  /** The name as received, still percent-encoded: how a name that is not text is named back. */
  rawName: string;
  name: DecodedText;
  value: DecodedText;
}

/**
 * The pairs of a query string (with or without its `?`), split and decoded as the
 * application/x-www-form-urlencoded parser does (empty pairs skipped, `+` a space), but strictly.
 */
export function decodeQuery(query: string): QueryEntry[] {
  const entries: QueryEntry[] = [];
  for (const pair of query.replace(/^\?/, '').split('&')) {
    if (pair === '') continue;
    const equals = pair.indexOf('=');
    const rawName = equals === -1 ? pair : pair.slice(0, equals);
    const rawValue = equals === -1 ? '' : pair.slice(equals + 1);
    entries.push({ rawName, name: decodeComponent(rawName, true), value: decodeComponent(rawValue, true) });
  }
  return entries;
}

/** One path segment as received: percent-escapes decoded strictly, a `+` left as it is. */
export function decodePathSegment(raw: string): DecodedText {
  return decodeComponent(raw, false);
}

const CONTROL_CHARACTER = /\p{Cc}/u;
/** A high surrogate not followed by a low one, or a low one not preceded by a high one. */
const UNPAIRED_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** The first thing in decoded text that no parameter accepts, if any. */
export function textProblem(text: string): TextProblem | undefined {
  const control = CONTROL_CHARACTER.exec(text);
  const surrogate = UNPAIRED_SURROGATE.exec(text);
  const first =
    control && surrogate ? (control.index < surrogate.index ? control : surrogate) : (control ?? surrogate);
  if (!first) return undefined;
  const codePoint = first[0].charCodeAt(0);
  return first === control
    ? { kind: 'control_character', codePoint }
    : { kind: 'unpaired_surrogate', codePoint };
}

/**
 * What was wrong and what to send instead, as a phrase that follows the parameter's name
 * ("keywords has a broken percent-escape …"). Printable ASCII only.
 */
export function describeProblem(problem: TextProblem): string {
  switch (problem.kind) {
    case 'broken_escape':
      return (
        `has a broken percent-escape "${problem.escape.replace(/[^\x20-\x7e]/g, '?')}": ` +
        'a % must start an escape of two hex digits (send a literal % as %25)'
      );
    case 'invalid_utf8':
      return 'is not UTF-8 text once percent-decoded: percent-encode the UTF-8 bytes of the text (U+00E9 is %C3%A9)';
    case 'control_character':
      return `contains the control character ${codePointName(problem.codePoint)}, which no parameter takes: remove it`;
    case 'unpaired_surrogate':
      return (
        `contains an unpaired surrogate ${codePointName(problem.codePoint)}, which is not a character: ` +
        'send well-formed Unicode text'
      );
  }
}

function codePointName(codePoint: number): string {
  return `U+${codePoint.toString(16).toUpperCase().padStart(4, '0')}`;
}

const HEX_PAIR = /^[0-9A-Fa-f]{2}$/;
const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;
/** `fatal`: invalid UTF-8 throws instead of becoming U+FFFD. `ignoreBOM`: a BOM is kept as text, as URLSearchParams keeps it. */
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
const encoder = new TextEncoder();

/** Text between escapes is taken as it is; a client's URL library has already encoded the rest. */
function unescaped(text: string, plusIsSpace: boolean): string {
  return plusIsSpace ? text.replaceAll('+', ' ') : text;
}

function decodeComponent(raw: string, plusIsSpace: boolean): DecodedText {
  if (!raw.includes('%')) return checked(unescaped(raw, plusIsSpace));
  if (PRINTABLE_ASCII.test(raw)) {
    // Literal text of printable ASCII holds nothing to report, so the strict decoding below comes to
    // what the platform's decoder gives; where it throws (a broken escape, bytes that are not UTF-8),
    // the loop below finds out which problem to report.
    try {
      return checked(decodeURIComponent(unescaped(raw, plusIsSpace)));
    } catch {}
  }
  const bytes: number[] = [];
  for (let index = 0; index < raw.length; ) {
    if (raw[index] === '%') {
      const pair = raw.slice(index + 1, index + 3);
      if (!HEX_PAIR.test(pair))
        return { problem: { kind: 'broken_escape', escape: raw.slice(index, index + 3) } };
      bytes.push(Number.parseInt(pair, 16));
      index += 3;
    } else {
      const next = raw.indexOf('%', index);
      const end = next === -1 ? raw.length : next;
      const literal = unescaped(raw.slice(index, end), plusIsSpace);
      // TextEncoder would turn an unpaired surrogate into U+FFFD: report it rather than lose it.
      const problem = textProblem(literal);
      if (problem) return { problem };
      bytes.push(...encoder.encode(literal));
      index = end;
    }
  }
  let text: string;
  try {
    text = utf8.decode(Uint8Array.from(bytes));
  } catch {
    return { problem: { kind: 'invalid_utf8' } };
  }
  return checked(text);
}

function checked(text: string): DecodedText {
  const problem = textProblem(text);
  return problem ? { problem } : { text };
}
