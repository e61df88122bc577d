/**
 * Patterns as the OpenAPI 3.1 document must publish them: JSON Schema's dialect, an ECMA-262
 * source read with `u` semantics and no flags (JSON Schema 2020-12, core § 6.4). zod-to-openapi
 * writes `RegExp#toString()` minus its slashes, so a `/…/u` rule reaches the document as `…/u`,
 * which no input matches; this module turns every pattern of a generated document back into a bare
 * source, or refuses one that would say something the rule does not.
 */

/** The RegExp that zod-to-openapi rendered as `published`: its source, then `/flags` if it had any. */
export function renderedRegExp(published: string): RegExp {
  const slash = published.lastIndexOf('/');
  const flags = published.slice(slash + 1);
  // RegExp#source escapes every slash outside a character class, and a class ends in `]`: a slash
  // after an even run of backslashes followed only by flag letters is the separator of the flags.
  const backslashes = /\\*$/.exec(published.slice(0, slash))?.[0].length ?? 0;
  if (slash < 0 || backslashes % 2 === 1 || !/^[dgimsuvy]+$/.test(flags)) return new RegExp(published);
  return new RegExp(published.slice(0, slash), flags);
}

/**
 * The JSON Schema form of `regex`. `u` is what JSON Schema assumes anyway; any other flag (`i`,
 * `m`, `s`, `g`, `y`, `v`) changes what matches or how, and cannot be carried by a bare source: the
 * rule must be written without it (e.g. `[a-zA-Z]` for `[a-z]` with `i`).
 */
export function jsonSchemaPattern(regex: RegExp): string {
  const flags = regex.flags.replace('u', '');
  if (flags !== '') {
    throw new Error(
      `The pattern /${regex.source}/${regex.flags} cannot be published in JSON Schema: write it without the ${flags} flag.`,
    );
  }
  new RegExp(regex.source, 'u'); // throws when the source is not valid with `u` semantics
  return regex.source;
}

/** Rewrites, in place, every `pattern` keyword of a generated OpenAPI document. */
export function publishJsonSchemaPatterns(node: unknown): void {
  if (Array.isArray(node)) {
    for (const item of node) publishJsonSchemaPatterns(item);
  } else if (node !== null && typeof node === 'object') {
    const schema = node as Record<string, unknown>;
    for (const [key, value] of Object.entries(schema)) {
      if (key === 'pattern' && typeof value === 'string') {
        schema.pattern = jsonSchemaPattern(renderedRegExp(value));
      } else {
        publishJsonSchemaPatterns(value);
      }
    }
  }
}
