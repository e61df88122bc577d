/**
 * The success envelope `{ data, meta }` and the three paging shapes of the spec.
 */
import { z } from 'zod';

export const MAX_SAFE_CREDITS = Number.MAX_SAFE_INTEGER;

export const startPagingSchema = z.object({
  start: z.number().int().min(0),
  count: z.number().int().min(0),
  returned: z.number().int().min(0),
  hasMore: z.boolean(),
  nextStart: z.number().int().min(0).nullable(),
});

export const offsetPagingSchema = z.object({
  offset: z.number().int().min(0),
  limit: z.number().int().min(0),
  returned: z.number().int().min(0),
  hasMore: z.boolean(),
  nextOffset: z.number().int().min(0).nullable(),
});

export const cursorPagingSchema = z.object({
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

export type Paging =
  | z.infer<typeof startPagingSchema>
  | z.infer<typeof offsetPagingSchema>
  | z.infer<typeof cursorPagingSchema>;

/** Meta fields a run may add besides `creditCost` (profile details add sections and skills). */
export interface RunMeta {
  paging?: Paging;
  sections?: Record<string, string>;
  skills?: { hasMore: boolean | null };
}

/** The envelope schema of one operation, as published in OpenAPI and MCP output schemas. */
export function successEnvelopeSchema(
  data: z.ZodType,
  paging: PagingStyle,
  creditCost: number,
  extraMeta?: z.ZodObject,
) {
  const creditCostSchema = creditCost === 0 ? z.literal(0) : z.number().int().min(0).max(MAX_SAFE_CREDITS);
  const meta = z.object({
    creditCost: creditCostSchema,
    ...(paging === 'none' ? {} : { paging: pagingSchemas[paging] }),
    ...extraMeta?.shape,
  });
  return z.object({ data, meta });
}
