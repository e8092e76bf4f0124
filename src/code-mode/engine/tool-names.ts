// The name a tool has on the cell's `tools` object: Codex turns every character that
// cannot be part of a JS identifier into "_" (observed: "my-tool.x" → "my_tool_x",
// "1st" → "_st", "über" → "_ber"; "$ok" stays).

export function toolIdentifier(name: string): string {
  let out = "";
  for (const [index, char] of [...name].entries()) {
    const allowed = /[A-Za-z_$]/.test(char) || (index > 0 && /[0-9]/.test(char));
    out += allowed ? char : "_";
  }
  return out;
}
