/**
 * What every HTML page of the service (the console, its consent pages, the API reference) says to
 * the browser about itself, in one place: a Content-Security-Policy that loads nothing from
 * elsewhere and allows no framing, and the headers that go with it. A page widens the policy only
 * by what it names (an inline script's hash, a connect or form target), never by a wildcard.
 */

export interface PagePolicy {
  /** Script sources beside the page's own origin (an inline script's `'sha256-…'`). */
  scripts?: readonly string[];
  /** Style sources beside the page's own origin. */
  styles?: readonly string[];
  /** Origins the page's requests may reach beside its own. */
  connects?: readonly string[];
  /** Where the page's forms may post (and their redirects lead); default: its own origin. */
  forms?: readonly string[];
}

export function contentSecurityPolicy({
  scripts = [],
  styles = [],
  connects = [],
  forms = ["'self'"],
}: PagePolicy = {}): string {
  return [
    "default-src 'none'",
    ["script-src 'self'", ...scripts].join(' '),
    ["style-src 'self'", ...styles].join(' '),
    "img-src 'self' data:",
    ["connect-src 'self'", ...connects].join(' '),
    ['form-action', ...(forms.length === 0 ? ["'none'"] : forms)].join(' '),
    "frame-ancestors 'none'",
    "base-uri 'none'",
  ].join('; ');
}

/** The headers a page answers with under `policy`. */
export function pageSecurityHeaders(policy: string): Readonly<Record<string, string>> {
  return {
    'Content-Security-Policy': policy,
    'X-Content-Type-Options': 'nosniff',
    // Not `no-referrer`: under it Chromium sends `Origin: null` with the console's own forms.
    'Referrer-Policy': 'same-origin',
    'X-Frame-Options': 'DENY',
    'Cross-Origin-Opener-Policy': 'same-origin',
  };
}
