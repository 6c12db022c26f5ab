import { z } from '@hono/zod-openapi';

/** `{error:{code,message}}`: every 4xx and 5xx body. */
export const ErrorSchema = z.object({ error: z.object({ code: z.string(), message: z.string() }) }).openapi('Error');

/** A JSON response entry for `createRoute`. */
export function json<T extends z.ZodType>(schema: T, description: string) {
  return { content: { 'application/json': { schema } }, description };
}
