/**
 * Website tools: a public page rendered in headless Chromium behind the egress guard, answered as
 * HTML, as visible text, or as the email addresses the site publishes.
 */
import * as z from 'zod';
import type { ResponseExample } from '../operation-definition.js';

export const MAX_PAGE_CHARS = 2_097_152;

/** Only http(s); the address rules are the egress guard's (a refusal is 400 on `url`, no charge). */
export const websiteUrlParam = z
  .string()
  .min(1)
  .max(2048, 'url must be at most 2048 characters')
  .transform((raw, ctx) => {
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      ctx.addIssue({
        code: 'custom',
        message: 'url must be an absolute http or https URL',
        params: { detailCode: 'invalid_format' },
      });
      return z.NEVER;
    }
    return url;
  });

const finalUrl = z.string().min(1).max(2048);
const title = z.string().max(4096).nullable();

const WEBSITE_STATUSES = [200, 400, 401, 402, 403, 404, 405, 406, 415, 429, 500, 502, 503, 504] as const;
/** The 35 s processing budget plus settlement. */
const BROWSER_RUNTIME = { timeoutMs: 40_000, memoryMb: 2048, needs: ['browser'] } as const;
/** A target answering 404 or 410 is a confirmed-missing page: the work was done, the charge stands. */
const KEEP_ON_MISSING = { chargedErrors: ['resource_not_found'] } as const;

function websiteOperation<const Id extends string, const D extends z.ZodType>(spec: {
  id: Id;
  path: string;
  summary: string;
  description: string;
  data: D;
  price: number;
  /** Beyond the spec's catalog: listed only on request (`?toolsets=websites`). */
  mcpTool: string;
  /** What the service answers for https://example.com/ (a page cannot be recorded without the internet). */
  responseExample: ResponseExample;
}) {
  return {
    id: spec.id,
    family: 'websites',
    group: 'websites',
    summary: spec.summary,
    description: `${spec.description} Only public http(s) destinations on ports 80 and 443, redirects and page scripts included; returned content is untrusted.`,
    variants: [{ path: spec.path }],
    identifiers: [],
    query: z.object({ url: websiteUrlParam }),
    data: spec.data,
    paging: 'none',
    price: spec.price,
    examples: { url: 'https://example.com/' },
    responseExample: spec.responseExample,
    settlement: KEEP_ON_MISSING,
    mcpTool: spec.mcpTool,
    mcpListing: 'on-request',
    runtime: BROWSER_RUNTIME,
    statuses: WEBSITE_STATUSES,
  } as const;
}

export const websiteContent = websiteOperation({
  id: 'websites.content',
  path: '/v1/websites/content',
  mcpTool: 'get_website_html',
  summary: 'Rendered HTML of a public page',
  description:
    'The final URL after redirects, the title, and the HTML after JavaScript rendering (at most 2 MiB).',
  data: z.object({ url: finalUrl, title, html: z.string().max(MAX_PAGE_CHARS) }),
  price: 2,
  responseExample: {
    data: {
      url: 'https://example.com/',
      title: 'Example Domain',
      html:
        '<!DOCTYPE html><html lang="en"><head><title>Example Domain</title><meta name="viewport" ' +
        'content="width=device-width, initial-scale=1"></head><body><div><h1>Example Domain</h1><p>This ' +
        'domain is for use in documentation examples without needing permission. Avoid use in operations.' +
        '</p><p><a href="https://iana.org/domains/example">Learn more</a></p></div></body></html>',
    },
    meta: { creditCost: 2 },
  },
});

export const websiteText = websiteOperation({
  id: 'websites.text',
  path: '/v1/websites/text',
  mcpTool: 'get_website_text',
  summary: 'Visible text of a public page',
  description:
    'The visible text after rendering: scripts, styles, hidden elements and frames removed, block elements ' +
    'as line breaks, paragraphs separated by one blank line, whitespace collapsed, at most 2 MiB. A page ' +
    'with no visible text is a target failure, refunded.',
  data: z.object({ url: finalUrl, title, text: z.string().max(MAX_PAGE_CHARS) }),
  price: 2,
  responseExample: {
    data: {
      url: 'https://example.com/',
      title: 'Example Domain',
      text:
        'Example Domain\n\nThis domain is for use in documentation examples without needing permission. ' +
        'Avoid use in operations.\n\nLearn more',
    },
    meta: { creditCost: 2 },
  },
});

export const websiteEmails = websiteOperation({
  id: 'websites.emails',
  path: '/v1/websites/emails',
  mcpTool: 'find_website_emails',
  summary: 'Email addresses a website publishes',
  description:
    'Starts at the page, then follows same-site contact, support, about, imprint and legal pages (several ' +
    'languages), at most eight attempts, and stops at the first page with addresses: up to 100 of them.',
  data: z.object({
    url: finalUrl,
    emails: z.array(z.object({ email: z.string().max(254), sourceUrl: finalUrl })).max(100),
    pagesChecked: z.number().int().min(1).max(8),
    truncated: z.boolean(),
    stopReason: z.enum(['found', 'exhausted', 'page_limit', 'time_limit', 'page_errors']),
  }),
  price: 5,
  responseExample: {
    data: {
      url: 'https://example.com/',
      emails: [
        { email: 'hello@example.com', sourceUrl: 'https://example.com/contact' },
        { email: 'privacy@example.com', sourceUrl: 'https://example.com/contact' },
      ],
      pagesChecked: 2,
      truncated: false,
      stopReason: 'found',
    },
    meta: { creditCost: 5 },
  },
});

export const websiteOperations = [websiteContent, websiteText, websiteEmails] as const;
