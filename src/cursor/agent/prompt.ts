// The static system prompt. It is stored as the conversation's first message the
// first time and replayed from storage afterwards, so editing this file never
// changes the prefix of an existing conversation (its prompt cache stays valid).
import systemPrompt from "../../../prompt/system.md";

export const SYSTEM_PROMPT: string = systemPrompt.trim();
