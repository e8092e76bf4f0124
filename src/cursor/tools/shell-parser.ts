// Parses a Shell command for the client's allowlist (docs/shell-parsing.md). The
// parser loads on the first Shell call, not at Worker startup, and is kept for
// the isolate's life; a failure to load or parse reports parsing_failed.
import type { Parser } from "web-tree-sitter";
import { errorKind } from "../../core/log-safe.ts";
import { analyzeShellTree, parsingFailed, type ShellParse } from "./shell-parse.ts";

/** Longer commands are reported as not parsed: parsing costs about 4 ms of CPU per KiB of tokens. */
const MAX_PARSED_CHARS = 64 * 1024;

let parser: Promise<Parser> | undefined;

function loadParser(): Promise<Parser> {
  if (parser) return parser;
  const loading = import("./bash-grammar.ts").then((grammar) => grammar.createBashParser());
  // A failed load is retried by the next call instead of failing every later one.
  loading.catch(() => {
    if (parser === loading) parser = undefined;
  });
  parser = loading;
  return loading;
}

export async function parseShellCommand(command: string): Promise<ShellParse> {
  if (command.length > MAX_PARSED_CHARS) return parsingFailed();
  try {
    const tree = (await loadParser()).parse(command);
    if (!tree) return parsingFailed();
    try {
      return analyzeShellTree(tree.rootNode, command);
    } finally {
      tree.delete();
    }
  } catch (err) {
    // The command text stays out of the log.
    console.error("byok-edge: shell parser failed", errorKind(err));
    return parsingFailed();
  }
}
