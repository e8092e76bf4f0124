// Reads a tree-sitter-bash syntax tree into what Cursor's shell allowlist looks at:
// ShellArgs.simple_commands, the redirect flags and ShellCommandParsingResult.
// Pure; the rules and the node-type mapping are in docs/shell-parsing.md.
import type { MessageInitShape } from "@bufbuild/protobuf";
import type { Node } from "web-tree-sitter";
import type { ShellCommandParsingResult_RedirectSchema, ShellCommandParsingResultSchema } from "../../proto/gen/agent/v1/agent_pb.ts";

type ParsingResultInit = MessageInitShape<typeof ShellCommandParsingResultSchema>;
type ExecutableCommandInit = NonNullable<ParsingResultInit["executableCommands"]>[number];
type RedirectInit = MessageInitShape<typeof ShellCommandParsingResult_RedirectSchema>;

/** The ShellArgs fields the parse fills. */
export interface ShellParse {
  simpleCommands: string[];
  hasInputRedirect: boolean;
  hasOutputRedirect: boolean;
  parsingResult: ParsingResultInit;
}

/** Nothing known: the client asks the user instead of matching its allowlist. */
export function parsingFailed(): ShellParse {
  return { simpleCommands: [], hasInputRedirect: false, hasOutputRedirect: false, parsingResult: { parsingFailed: true } };
}

/** Nodes whose value the shell computes at run time. */
const DYNAMIC = new Set(["simple_expansion", "expansion", "command_substitution", "process_substitution", "arithmetic_expansion"]);
/** Nodes holding literal text that their children need not cover. */
const TEXT = new Set(["heredoc_body", "string", "translated_string", "ansi_c_string", "raw_string", "comment"]);
/** Builtins that run text as shell code (eval), or run it later (trap), or change what a name means (alias). */
const OPAQUE_BUILTINS = new Set(["eval", "trap", "alias"]);
/** Whitespace and line continuations: the only text allowed between the tokens of a statement. */
const SEPARATOR = /^(?:\s|\\\r?\n)*$/;

/** Why the line cannot be represented faithfully; caught in analyzeShellTree. */
class Unrepresentable extends Error {}

export function analyzeShellTree(root: Node, source: string): ShellParse {
  if (root.hasError) return parsingFailed();
  try {
    return analyze(root, source);
  } catch (err) {
    if (err instanceof Unrepresentable) return parsingFailed();
    throw err;
  }
}

function analyze(root: Node, source: string): ShellParse {
  const commands: ExecutableCommandInit[] = [];
  const redirects: RedirectInit[] = [];
  let safeRedirects = true;
  let substitution = false;
  // Pre-order, iteratively: commands come out in source order, and deep nesting cannot overflow the stack.
  const stack: Node[] = [root];
  for (let node = stack.pop(); node; node = stack.pop()) {
    if (node.isMissing) throw new Unrepresentable();
    const children = node.children;
    if (children.length > 0 && !TEXT.has(node.type)) checkCovered(node, children, source);
    switch (node.type) {
      case "function_definition":
        throw new Unrepresentable();
      case "command":
        commands.push(simpleCommand(node, children));
        break;
      case "declaration_command":
      case "unset_command":
        commands.push(builtinCommand(node, children));
        break;
      case "file_redirect":
      case "heredoc_redirect":
      case "herestring_redirect": {
        const redirect = readRedirect(node, children);
        redirects.push(redirect.init);
        safeRedirects &&= redirect.safe;
        break;
      }
      case "command_substitution":
      case "process_substitution":
        substitution = true;
        break;
    }
    for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]!);
  }
  const operators = redirects.map((r) => r.operator ?? "");
  return {
    simpleCommands: commands.map((c) => c.name ?? ""),
    hasInputRedirect: operators.some((op) => op.startsWith("<")),
    hasOutputRedirect: operators.some((op) => op.includes(">")),
    parsingResult: {
      parsingFailed: false,
      executableCommands: commands,
      hasRedirects: redirects.length > 0,
      hasCommandSubstitution: substitution,
      ...(redirects.length > 0 && { allRedirectsAreDevNull: safeRedirects }),
      redirects,
    },
  };
}

/**
 * Every character of a statement belongs to one of its tokens, apart from whitespace.
 * tree-sitter-bash drops a few tokens silently (a lone `-` before a here-doc), so a gap
 * with text in it means the tree is not the line.
 */
function checkCovered(node: Node, children: Node[], source: string): void {
  let at = node.startIndex;
  for (const child of children) {
    if (child.startIndex > at && !SEPARATOR.test(source.slice(at, child.startIndex))) throw new Unrepresentable();
    at = Math.max(at, child.endIndex);
  }
  if (node.endIndex > at && !SEPARATOR.test(source.slice(at, node.endIndex))) throw new Unrepresentable();
}

function simpleCommand(node: Node, children: Node[]): ExecutableCommandInit {
  const nameNode = node.childForFieldName("name");
  // `cmd (sub)`: the grammar takes a subshell as an argument list, bash refuses it.
  if (!nameNode || children.some((c) => c.type === "subshell")) throw new Unrepresentable();
  // `$CMD args`, `"$(which git)" status`: which program runs is only known at run time.
  if (isDynamic(nameNode)) throw new Unrepresentable();
  if (OPAQUE_BUILTINS.has(staticValue(nameNode.namedChildren[0] ?? nameNode) ?? "")) throw new Unrepresentable();
  const args = node.childrenForFieldName("argument");
  for (let i = 1; i < args.length; i++) {
    // Two arguments with nothing between them are one word the grammar split (`$"text"`).
    if (args[i]!.startIndex === args[i - 1]!.endIndex) throw new Unrepresentable();
  }
  return { name: nameNode.text, args: args.map((arg) => ({ type: arg.type, value: arg.text })), fullText: node.text };
}

/** export / declare / typeset / readonly / local / unset / unsetenv, which the grammar gives their own nodes. */
function builtinCommand(node: Node, children: Node[]): ExecutableCommandInit {
  const [keyword, ...rest] = children;
  if (!keyword) throw new Unrepresentable();
  const args = rest.filter((arg) => arg.isNamed && arg.type !== "comment");
  return { name: keyword.text, args: args.map((arg) => ({ type: arg.type, value: arg.text })), fullText: node.text };
}

interface ReadRedirect {
  init: RedirectInit;
  /** Writes nothing anywhere: to or from /dev/null, or a copy or close of a descriptor (`2>&1`, `>&-`). */
  safe: boolean;
}

function readRedirect(node: Node, children: Node[]): ReadRedirect {
  const descriptor = node.childForFieldName("descriptor");
  const operator = children.find((c) => !c.isNamed)?.type ?? "";
  const fds = descriptor ? [descriptorNumber(descriptor)] : defaultFds(operator);
  if (node.type === "heredoc_redirect") {
    // Words after the delimiter (`cat <<EOF file`) are the command's arguments, but the grammar files them here.
    if (node.childrenForFieldName("argument").length > 0) throw new Unrepresentable();
    return { init: { operator, destinationFds: fds, targetNodeType: "heredoc_redirect" }, safe: false };
  }
  const targets =
    node.type === "file_redirect"
      ? node.childrenForFieldName("destination")
      : node.namedChildren.filter((c) => c.type !== "file_descriptor");
  // `echo > a b`: the grammar takes b as a second target; bash passes it to echo.
  if (targets.length > 1) throw new Unrepresentable();
  const target = targets[0];
  const init: RedirectInit = { operator, destinationFds: fds, targetNodeType: target?.type ?? "" };
  if (target && !isDynamic(target)) init.targetText = target.text;
  if (node.type === "herestring_redirect") return { init, safe: false };
  const copiesDescriptor = (operator === ">&" || operator === "<&") && target?.type === "number";
  const safe = !target || copiesDescriptor || staticValue(target) === "/dev/null";
  return { init, safe };
}

function descriptorNumber(descriptor: Node): number {
  const fd = Number(descriptor.text);
  if (!Number.isInteger(fd) || fd < 0 || fd > 0xffff_ffff) throw new Unrepresentable();
  return fd;
}

/** The descriptors an operator redirects when it names none. */
function defaultFds(operator: string): number[] {
  if (operator === "&>" || operator === "&>>") return [1, 2];
  return operator.startsWith("<") ? [0] : [1];
}

function isDynamic(node: Node): boolean {
  if (DYNAMIC.has(node.type)) return true;
  return node.namedChildren.some(isDynamic);
}

/** The word the shell sees after quote removal, or undefined when it depends on run time. */
function staticValue(node: Node): string | undefined {
  switch (node.type) {
    case "word":
    case "number":
      return node.text.replace(/\\(.)/gs, "$1");
    case "raw_string":
      return node.text.slice(1, -1);
    case "string":
      if (!node.namedChildren.every((c) => c.type === "string_content")) return undefined;
      return node.namedChildren.map((c) => c.text.replace(/\\([$`"\\])/g, "$1")).join("");
    case "concatenation": {
      const parts = node.namedChildren.map(staticValue);
      return parts.every((p) => p !== undefined) ? parts.join("") : undefined;
    }
    default:
      return undefined;
  }
}
