// The enumerable globals of a cell on Codex's reference host 0.169.0, observed
// (docs/code-mode.md#globals); the engine's tests and the differential suite
// both hold byok-edge to it.
export const CODEX_GLOBALS = [
  "ALL_TOOLS",
  "as_settled",
  "audio",
  "clearTimeout",
  "content",
  "exit",
  "generatedImage",
  "image",
  "load",
  "notify",
  "setTimeout",
  "store",
  "stream_settled",
  "text",
  "tools",
  "yield_control",
];
