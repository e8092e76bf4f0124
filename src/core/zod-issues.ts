// How a zod validation failure reads, in one place: each issue as a dotted path and zod's
// reason, never the value (zod's reasons name types and bounds, not what was sent).
import type { z } from "zod";

export interface Issue {
  /** The dotted path of the field, `under` first; `topLevel` for the value itself. */
  path: string;
  message: string;
  /** A required field that was not sent. */
  missing: boolean;
}

/** The issues of a failed parse, each with its path (`under` is prepended, e.g. "body"). */
export function issuesOf(error: z.ZodError, where: { under?: string; topLevel?: string } = {}): Issue[] {
  return error.issues.map((issue) => ({
    path: [where.under, ...issue.path.map(String)].filter((part) => part !== undefined).join(".") || (where.topLevel ?? ""),
    message: issue.message,
    missing: issue.code === "invalid_type" && issue.message.endsWith("received undefined"),
  }));
}

/** The issues as one line: "path: reason; path: reason". */
export function describeIssues(issues: readonly Pick<Issue, "path" | "message">[]): string {
  return issues.map((issue) => (issue.path ? `${issue.path}: ${issue.message}` : issue.message)).join("; ");
}
