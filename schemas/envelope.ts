/**
 * The success envelope `{ data, meta }` and the three paging shapes of the spec.
 */
import * as z from 'zod';

export const MAX_SAFE_CREDITS = Number.MAX_SAFE_INTEGER;

/** The largest `offset` or `start` a request may give: paging offers no next page beyond it. */
export const MAX_OFFSET = 10_000;

/*
 * The paging shapes are made where an envelope schema is (OpenAPI, MCP output schemas, an upstream's
 * answers), not at import: every function imports this module, few make an envelope.
 */
const startPagingSchema = () =>
  z.object({
    start: z.number().int().min(0),
    count: z.number().int().min(0),
    returned: z.number().int().min(0),
    hasMore: z.boolean(),
    nextStart: z.number().int().min(0).nullable(),
  });

const offsetPagingSchema = () =>
  z.object({
    offset: z.number().int().min(0),
    limit: z.number().int().min(0),
    returned: z.number().int().min(0),
    hasMore: z.boolean(),
    nextOffset: z.number().int().min(0).nullable(),
  });

const cursorPagingSchema = () =>
  z.object({
    hasMore: z.boolean(),
    nextCursor: z.string().nullable(),
  });

export const pagingStyles = ['none', 'start', 'offset', 'cursor'] as const;
export type PagingStyle = (typeof pagingStyles)[number];

const pagingSchemas = {
  start: startPagingSchema,
  offset: offsetPagingSchema,
  cursor: cursorPagingSchema,
} as const;

export type CursorPaging = z.infer<ReturnType<typeof cursorPagingSchema>>;
export type Paging =
  | z.infer<ReturnType<typeof startPagingSchema>>
  | z.infer<ReturnType<typeof offsetPagingSchema>>
  | CursorPaging;

/** Meta fields a run may add besides `creditCost` (profile details add sections and skills). */
export interface RunMeta {
  paging?: Paging;
  sections?: Record<string, string>;
  skills?: { hasMore: boolean | null };
}

function creditCostSchema(creditCost: number) {
  return creditCost === 0 ? z.literal(0) : z.number().int().min(0).max(MAX_SAFE_CREDITS);
}

/** The envelope schema of one operation, as published in OpenAPI and MCP output schemas. */
export function successEnvelopeSchema(
  data: z.ZodType,
  paging: PagingStyle,
  creditCost: number,
  extraMeta?: z.ZodObject,
) {
  const meta = z.object({
    creditCost: creditCostSchema(creditCost),
    ...(paging === 'none' ? {} : { paging: pagingSchemas[paging]() }),
    ...extraMeta?.shape,
  });
  return z.object({ data, meta });
}

/**
 * The /api/v2 envelope: the same `data` as v1, the paging of the v1 `meta.paging` lifted to the top
 * (null on operations that do not page, so every v2 body has the same three keys), and `meta` with
 * the request's id and operation besides v1's creditCost (and sections and skills on profile details).
 */
export function v2EnvelopeSchema(
  data: z.ZodType,
  paging: PagingStyle,
  creditCost: number,
  extraMeta?: z.ZodObject,
) {
  return z.object({
    data,
    paging: paging === 'none' ? z.null() : pagingSchemas[paging](),
    meta: z.object({
      requestId: z.string().min(1).max(64),
      operation: z.string(),
      creditCost: creditCostSchema(creditCost),
      ...extraMeta?.shape,
    }),
  });
}
