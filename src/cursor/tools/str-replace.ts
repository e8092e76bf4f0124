// StrReplace: replaces an exact piece of a file. The replacement is computed on
// the server from a hidden read; a missing or ambiguous match writes nothing.
import { z } from "zod";
import { boolean, optional, parseArgs, withAliases } from "./args.ts";
import { toolCard } from "./tool-card.ts";
import { definitionOf } from "./definitions.ts";
import { editCard, runEdit } from "./edit-run.ts";
import { replaceInText } from "./str-replace-text.ts";
import type { Tool } from "./tool-types.ts";

const StrReplaceArgsInput = z.preprocess(
  withAliases("path", ["file_path", "filePath"]),
  z
    .object({
      path: z.string().min(1, "must not be empty"),
      old_string: z.string().min(1, "must not be empty; use Write to create or overwrite a file"),
      new_string: z.string(),
      replace_all: optional(boolean),
    })
    .refine((args) => args.old_string !== args.new_string, "old_string and new_string are identical, so there is nothing to change"),
);
export type StrReplaceToolArgs = z.output<typeof StrReplaceArgsInput>;

export const strReplaceTool: Tool<StrReplaceToolArgs> = {
  name: "StrReplace",
  definition: definitionOf("StrReplace"),
  emptyCard: () => toolCard({ case: "editToolCall", value: {} }),
  parse: (json) => parseArgs("StrReplace", StrReplaceArgsInput, json),
  startedCard: (args) => editCard({ path: args.path }),
  run: (args, ctx) =>
    runEdit(
      {
        path: args.path,
        compute: (current) => {
          if (!current.exists) return { ok: false, error: `File not found: ${args.path}. Use Write to create a new file.` };
          if (!current.complete) {
            return {
              ok: false,
              error: `${args.path} is too large to edit with StrReplace (the client returned only part of it). The file was not changed.`,
            };
          }
          return replaceInText(args.path, current.text, args.old_string, args.new_string, args.replace_all ?? false);
        },
        summary: (_created, added, removed) => `Edited ${args.path} (+${added} -${removed} lines)`,
      },
      ctx,
    ),
};
