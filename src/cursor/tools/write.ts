// Write: creates a file or replaces its whole content, through the edit
// pipeline (a missing file is fine: it is being created).
import { z } from "zod";
import { parseArgs, withAliases } from "./args.ts";
import { definitionOf } from "./definitions.ts";
import { editCard, runEdit } from "./edit-run.ts";
import { toolCard } from "./tool-card.ts";
import type { Tool } from "./tool-types.ts";

const WriteArgsInput = z.preprocess(
  (value) => withAliases("contents", ["content"])(withAliases("path", ["file_path", "filePath"])(value)),
  z.object({ path: z.string().min(1, "must not be empty"), contents: z.string() }),
);
export type WriteToolArgs = z.output<typeof WriteArgsInput>;

export const writeTool: Tool<WriteToolArgs> = {
  name: "Write",
  definition: definitionOf("Write"),
  emptyCard: () => toolCard({ case: "editToolCall", value: {} }),
  parse: (json) => parseArgs("Write", WriteArgsInput, json),
  startedCard: (args) => editCard({ path: args.path, streamContent: args.contents }),
  run: (args, ctx) =>
    runEdit(
      {
        path: args.path,
        streamContent: args.contents,
        compute: () => ({ ok: true, value: args.contents }),
        summary: (created, added, removed) =>
          created ? `Created ${args.path} (+${added} lines)` : `Wrote ${args.path} (+${added} -${removed} lines)`,
      },
      ctx,
    ),
};
