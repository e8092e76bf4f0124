// The Shell parse the client's allowlist reads (docs/shell-parsing.md), run in the
// Workers runtime so the tree-sitter WebAssembly really loads there.
import { describe, expect, it } from "vitest";
import { parseShellCommand } from "../../../src/cursor/tools/shell-parser.ts";

const word = (value: string) => ({ type: "word", value });
const noRedirects = { hasRedirects: false, hasCommandSubstitution: false, redirects: [] };
const FAILED = { simpleCommands: [], hasInputRedirect: false, hasOutputRedirect: false, parsingResult: { parsingFailed: true } };

describe("shell parsing", () => {
  it("names every command of a pipeline inside an && list, in order", async () => {
    expect(await parseShellCommand("git status && npm test | head")).toEqual({
      simpleCommands: ["git", "npm", "head"],
      hasInputRedirect: false,
      hasOutputRedirect: false,
      parsingResult: {
        parsingFailed: false,
        executableCommands: [
          { name: "git", args: [word("status")], fullText: "git status" },
          { name: "npm", args: [word("test")], fullText: "npm test" },
          { name: "head", args: [], fullText: "head" },
        ],
        ...noRedirects,
      },
    });
  });

  it("keeps quoted arguments as written and types them by their grammar node", async () => {
    const parse = await parseShellCommand(`rg -n "TODO: fix" 'a b' src/$DIR head -40 $'\\t'`);
    expect(parse.parsingResult.executableCommands).toEqual([
      {
        name: "rg",
        args: [
          word("-n"),
          { type: "string", value: '"TODO: fix"' },
          { type: "raw_string", value: "'a b'" },
          { type: "concatenation", value: "src/$DIR" },
          word("head"),
          { type: "number", value: "-40" },
          { type: "ansi_c_string", value: "$'\\t'" },
        ],
        fullText: `rg -n "TODO: fix" 'a b' src/$DIR head -40 $'\\t'`,
      },
    ]);
  });

  it("lists the commands of a subshell and of ;, && and || lists", async () => {
    const parse = await parseShellCommand("(cd web && npm ci) || echo failed; ls -la\nmake");
    expect(parse.simpleCommands).toEqual(["cd", "npm", "echo", "ls", "make"]);
    expect(parse.parsingResult.executableCommands?.map((c) => c.fullText)).toEqual(["cd web", "npm ci", "echo failed", "ls -la", "make"]);
    expect(parse.parsingResult).toMatchObject({ parsingFailed: false, ...noRedirects });
  });

  it("flags command and process substitution and lists the commands inside them", async () => {
    const dollar = await parseShellCommand('git log "$(git rev-parse HEAD)" --since=`date +%F`');
    expect(dollar.simpleCommands).toEqual(["git", "git", "date"]);
    expect(dollar.parsingResult.hasCommandSubstitution).toBe(true);
    expect(dollar.parsingResult.executableCommands?.[0]?.args).toEqual([
      word("log"),
      { type: "string", value: '"$(git rev-parse HEAD)"' },
      { type: "concatenation", value: "--since=`date +%F`" },
    ]);

    const process = await parseShellCommand("diff <(ls a) <(ls b)");
    expect(process.simpleCommands).toEqual(["diff", "ls", "ls"]);
    expect(process.parsingResult.hasCommandSubstitution).toBe(true);

    const quoted = await parseShellCommand("echo '$(not run)'");
    expect(quoted.parsingResult.hasCommandSubstitution).toBe(false);
  });

  it("reports redirects to files with their operator, descriptors and target", async () => {
    const parse = await parseShellCommand("npm test > out.log 2>&1 && sort < in.txt >> sorted.txt");
    expect(parse).toMatchObject({ simpleCommands: ["npm", "sort"], hasInputRedirect: true, hasOutputRedirect: true });
    expect(parse.parsingResult).toMatchObject({ hasRedirects: true, allRedirectsAreDevNull: false });
    expect(parse.parsingResult.redirects).toEqual([
      { operator: ">", destinationFds: [1], targetNodeType: "word", targetText: "out.log" },
      { operator: ">&", destinationFds: [2], targetNodeType: "number", targetText: "1" },
      { operator: "<", destinationFds: [0], targetNodeType: "word", targetText: "in.txt" },
      { operator: ">>", destinationFds: [1], targetNodeType: "word", targetText: "sorted.txt" },
    ]);
    // The command's own text leaves its redirects out, as the grammar does.
    expect(parse.parsingResult.executableCommands?.map((c) => c.fullText)).toEqual(["npm test", "sort"]);
  });

  it("says all redirects are harmless when they only go to /dev/null or copy a descriptor", async () => {
    const parse = await parseShellCommand("ls missing 2>/dev/null; make &> /dev/null; cat x 2>&1 >'/dev/null'");
    expect(parse).toMatchObject({ hasInputRedirect: false, hasOutputRedirect: true });
    expect(parse.parsingResult.allRedirectsAreDevNull).toBe(true);
    expect(parse.parsingResult.redirects).toEqual([
      { operator: ">", destinationFds: [2], targetNodeType: "word", targetText: "/dev/null" },
      { operator: "&>", destinationFds: [1, 2], targetNodeType: "word", targetText: "/dev/null" },
      { operator: ">&", destinationFds: [2], targetNodeType: "number", targetText: "1" },
      { operator: ">", destinationFds: [1], targetNodeType: "raw_string", targetText: "'/dev/null'" },
    ]);
  });

  it("leaves the text out of a redirect whose target is only known at run time", async () => {
    const parse = await parseShellCommand('echo hi > "$OUT"');
    expect(parse.parsingResult.redirects).toEqual([{ operator: ">", destinationFds: [1], targetNodeType: "string" }]);
    expect(parse.parsingResult.allRedirectsAreDevNull).toBe(false);
  });

  it("reports here-docs and here-strings as input redirects and reads the commands a here-doc runs", async () => {
    const heredoc = await parseShellCommand('cat <<EOF > notes.txt\nbuilt $(date)\nEOF\ngrep -c x <<< "$text"');
    expect(heredoc).toMatchObject({ simpleCommands: ["cat", "date", "grep"], hasInputRedirect: true, hasOutputRedirect: true });
    expect(heredoc.parsingResult).toMatchObject({ hasCommandSubstitution: true, allRedirectsAreDevNull: false });
    expect(heredoc.parsingResult.redirects).toEqual([
      { operator: "<<", destinationFds: [0], targetNodeType: "heredoc_redirect" },
      { operator: ">", destinationFds: [1], targetNodeType: "word", targetText: "notes.txt" },
      { operator: "<<<", destinationFds: [0], targetNodeType: "string" },
    ]);

    const quoted = await parseShellCommand("python3 script.py <<'PY'\nprint($(id))\nPY");
    expect(quoted.simpleCommands).toEqual(["python3"]);
    expect(quoted.parsingResult.hasCommandSubstitution).toBe(false);
  });

  it("names the command after environment assignments and keeps the assignments out of its arguments", async () => {
    const parse = await parseShellCommand("NODE_ENV=test FOO='a b' npm run build");
    expect(parse.simpleCommands).toEqual(["npm"]);
    expect(parse.parsingResult.executableCommands).toEqual([
      { name: "npm", args: [word("run"), word("build")], fullText: "NODE_ENV=test FOO='a b' npm run build" },
    ]);
  });

  it("lists export and unset as commands and runs no command for a bare assignment", async () => {
    const parse = await parseShellCommand("export PATH=/opt/bin:$PATH CI; unset X; A=1; git status");
    expect(parse.simpleCommands).toEqual(["export", "unset", "git"]);
    expect(parse.parsingResult.executableCommands?.[0]).toEqual({
      name: "export",
      args: [
        { type: "variable_assignment", value: "PATH=/opt/bin:$PATH" },
        { type: "variable_name", value: "CI" },
      ],
      fullText: "export PATH=/opt/bin:$PATH CI",
    });
  });

  it("lists the commands inside loops and conditionals", async () => {
    const parse = await parseShellCommand('for f in *.ts; do [ -s "$f" ] && wc -l "$f"; done; if test -d x; then rm -r x; fi');
    expect(parse.simpleCommands).toEqual(["wc", "test", "rm"]);
  });

  it.each([
    ["an unterminated quote", "echo 'unterminated"],
    ["an unclosed if", "if true; then echo x"],
    ["a function definition", "ls() { rm -rf ~; }; ls"],
    ["eval", 'eval "$cmd"'],
    ["a quoted eval", "'eval' x"],
    ["an escaped eval", '\\eval "$cmd"'],
    ["trap", "trap 'rm -f /tmp/x' EXIT"],
    ["alias", "alias ls='rm -rf'"],
    ["a command name from a variable", "$EDITOR notes.txt"],
    ["a command name from a substitution", '"$(which git)" status'],
    ["a word the grammar drops before a here-doc", "python3 - <<'PY'\nprint(1)\nPY"],
    ["a word the grammar takes as a second redirect target", "echo > out.txt more"],
    ["a word the grammar files under a here-doc", "cat <<EOF notes.txt\nbody\nEOF"],
    ["a word the grammar splits in two", 'echo $"text"'],
    ["an operator the grammar does not know", "exec 3<>/tmp/fifo"],
  ])("marks %s as not parsed, with no commands", async (_what, command) => {
    expect(await parseShellCommand(command)).toEqual(FAILED);
  });

  it("marks a line too long to parse as not parsed", async () => {
    expect(await parseShellCommand(`echo ${"x ".repeat(40_000)}`)).toEqual(FAILED);
  });

  it("parses one command after another with the same loaded parser", async () => {
    const results = await Promise.all(["ls", "pwd", "whoami"].map(parseShellCommand));
    expect(results.map((r) => r.simpleCommands)).toEqual([["ls"], ["pwd"], ["whoami"]]);
  });
});
