/**
 * The service's version, as /healthz reports it. A constant rather than an import of package.json,
 * which would put the whole manifest into every Lambda bundle; a test keeps the two equal.
 */
export const SERVICE_VERSION = '0.1.0';
