// A conversation's history as the provider received it: the non-system messages of
// an OpenAI Chat Completions request body, one line each, so a fault test can say
// exactly which messages a turn must carry and that none is there twice.

interface ChatMessage {
  role: string;
  content?: string | { type: string; text?: string }[] | null;
  tool_calls?: { id: string; function: { name: string; arguments: string } }[];
  tool_call_id?: string;
}

/** `user: …`, `assistant: …`, `assistant calls Read(id) …`, `tool(id): …`, in request order. */
export function transcript(body: string): string[] {
  const { messages } = JSON.parse(body) as { messages: ChatMessage[] };
  return messages.flatMap((m) => {
    if (m.role === "system") return [];
    const lines: string[] = [];
    const text = contentText(m.content);
    if (m.role === "tool") return [`tool(${m.tool_call_id}): ${text}`];
    if (text !== "") lines.push(`${m.role}: ${text}`);
    for (const call of m.tool_calls ?? []) lines.push(`${m.role} calls ${call.function.name}(${call.id}) ${call.function.arguments}`);
    return lines;
  });
}

function contentText(content: ChatMessage["content"]): string {
  if (typeof content === "string") return content;
  return (content ?? []).flatMap((part) => (part.type === "text" && part.text !== undefined ? [part.text] : [])).join("");
}
