// Byte-level views of recorded OpenAI Chat requests, for prefix-stability checks.

/** The request body up to (not including) the closing bracket of its messages array. */
export function messagesPrefix(body: string): string {
  const parsed = JSON.parse(body) as { messages: unknown[] };
  const start = body.indexOf('"messages":') + '"messages":'.length;
  const prefix = body.slice(0, start + JSON.stringify(parsed.messages).length - 1);
  if (!prefix.endsWith("}")) throw new Error("messages array not where expected in the request body");
  return prefix;
}

export function toolsJson(body: string): string {
  return JSON.stringify((JSON.parse(body) as { tools?: unknown }).tools ?? null);
}
