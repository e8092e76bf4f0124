// Reading a backend's JSON answer with a zod schema: a mismatch is a SearchError
// naming the service, never echoing the answer (it could quote the query).
import type { z } from "zod";
import { SearchError } from "./search-types.ts";

export function parseAnswer<T extends z.ZodType>(label: string, schema: T, answer: unknown): z.output<T> {
  const parsed = schema.safeParse(answer);
  if (!parsed.success) throw new SearchError(`${label} answered in an unexpected shape`);
  return parsed.data;
}
