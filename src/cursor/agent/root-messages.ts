// Cursor's client-held history format: one JSON model message per root blob
// (docs/protocol.md#root-messages). We also embed our exact message under providerOptions.byokEdge so
// a conversation recovered from the client replays byte for byte.
import { fromBase64 } from "../../core/bytes.ts";
import { z } from "zod";
import { IMAGE_MAX_BYTES, imagePartOf } from "../../provider/images.ts";
import type { ChatMessage, ImagePart } from "../../provider/types.ts";

type RootPart =
  | { type: "text"; text: string }
  /** `image`: base64 or a data URL; other backends write `mediaType` instead of `mimeType`. */
  | { type: "image"; image: string; mimeType?: string; mediaType?: string }
  | { type: "reasoning"; text: string }
  | { type: "tool-call"; toolCallId: string; toolName: string; args: unknown }
  | { type: "tool-result"; toolCallId: string; toolName: string; result: string; isError?: boolean };

export interface RootMessage {
  role: "system" | "user" | "assistant" | "tool";
  content: string | RootPart[];
  providerOptions?: { byokEdge?: OwnMessage } & Record<string, unknown>;
}

/** Our exact message and its idempotency key, carried inside the client's copy. */
interface OwnMessage {
  message: ChatMessage;
  key?: string;
}

/** The bytes of a message's root blob; their SHA-256 is its id in a checkpoint (docs/protocol.md#checkpoints). */
export function rootMessageBytes(message: ChatMessage, key?: string | null): Uint8Array {
  return new TextEncoder().encode(JSON.stringify(toRootMessage(message, key)));
}

export function toRootMessage(message: ChatMessage, key?: string | null): RootMessage {
  const providerOptions = { byokEdge: key ? { message, key } : { message } };
  switch (message.role) {
    case "system":
      return { role: message.role, content: message.content, providerOptions };
    case "user": {
      if (!message.images?.length) return { role: "user", content: message.content, providerOptions };
      // The image parts carry the data; our own copy leaves it out rather than hold it twice.
      const own = { ...message, images: message.images.map((image) => ({ ...image, data: "" })) };
      const parts: RootPart[] = message.content ? [{ type: "text", text: message.content }] : [];
      for (const image of message.images) parts.push({ type: "image", mimeType: image.mimeType, image: image.data });
      return { role: "user", content: parts, providerOptions: { byokEdge: key ? { message: own, key } : { message: own } } };
    }
    case "assistant": {
      const parts: RootPart[] = [];
      if (message.reasoning) parts.push({ type: "reasoning", text: message.reasoning });
      if (message.content) parts.push({ type: "text", text: message.content });
      for (const call of message.toolCalls ?? []) {
        parts.push({ type: "tool-call", toolCallId: call.id, toolName: call.name, args: parseArgs(call.arguments) });
      }
      return { role: "assistant", content: parts, providerOptions };
    }
    case "tool":
      return {
        role: "tool",
        content: [
          {
            type: "tool-result",
            toolCallId: message.toolCallId,
            toolName: message.name,
            result: message.content,
            ...(message.isError && { isError: true }),
          },
        ],
        providerOptions,
      };
  }
}

// What a root must look like to be read: the client holds these blobs, so any of them may be
// anything. Parts of types not listed are another backend's and are skipped.
const ImageSchema = z.object({ mimeType: z.string(), data: z.string() });
const OwnMessageSchema = z.discriminatedUnion("role", [
  z.object({ role: z.literal("system"), content: z.string() }),
  z.object({ role: z.literal("user"), content: z.string(), images: z.array(ImageSchema).optional() }),
  z.object({
    role: z.literal("assistant"),
    content: z.string(),
    reasoning: z.string().optional(),
    toolCalls: z
      .array(z.object({ id: z.string(), name: z.string(), arguments: z.string(), custom: z.literal(true).optional() }))
      .optional(),
    replay: z.object({ provider: z.enum(["openai-chat", "openai-responses", "anthropic"]), data: z.unknown() }).optional(),
  }),
  z.object({
    role: z.literal("tool"),
    toolCallId: z.string(),
    name: z.string(),
    content: z.string(),
    isError: z.boolean().optional(),
    images: z.array(ImageSchema).optional(),
  }),
]);
const KNOWN_PARTS: Record<string, z.ZodType> = {
  text: z.object({ text: z.string() }),
  reasoning: z.object({ text: z.string() }),
  "tool-call": z.object({ toolCallId: z.string(), toolName: z.string() }),
  "tool-result": z.object({ toolCallId: z.string(), toolName: z.string(), result: z.string() }),
};
const PartSchema = z.looseObject({ type: z.string() }).refine((part) => KNOWN_PARTS[part.type]?.safeParse(part).success ?? true);
const RootSchema = z.looseObject({
  role: z.enum(["system", "user", "assistant", "tool"]),
  content: z.union([z.string(), z.array(PartSchema)]),
});

/** `value` (a root blob's JSON) as a root message, or undefined when it is not one we can read. */
export function parseRootMessage(value: unknown): RootMessage | undefined {
  if (!RootSchema.safeParse(value).success) return undefined;
  const root = value as RootMessage;
  const own = root.providerOptions?.byokEdge;
  if (isOwnCopy(own) && (!OwnMessageSchema.safeParse(own.message).success || (own.key !== undefined && typeof own.key !== "string"))) {
    return undefined;
  }
  return root;
}

function isOwnCopy(own: unknown): own is OwnMessage {
  return (
    typeof own === "object" &&
    own !== null &&
    "message" in own &&
    typeof own.message === "object" &&
    own.message !== null &&
    "role" in own.message
  );
}

/** Reads a root message written by us (exactly) or by another Cursor backend (best effort); see parseRootMessage. */
export function fromRootMessage(root: RootMessage): { message: ChatMessage; key?: string }[] {
  const own = root.providerOptions?.byokEdge;
  if (isOwnCopy(own)) {
    const message = withRootImageData(own.message, root);
    return [own.key ? { message, key: own.key } : { message }];
  }
  return fromForeignRoot(root).map((message) => ({ message }));
}

/** Our user message with the image data its root parts carry, in order; images without any are dropped. */
function withRootImageData(message: ChatMessage, root: RootMessage): ChatMessage {
  if (message.role !== "user" || !message.images?.length) return message;
  const data = imageParts(root).map((part) => part.image);
  const images = message.images.flatMap((image, i) => (image.data || data[i] ? [{ ...image, data: image.data || data[i]! }] : []));
  return { ...message, images };
}

type ImageRootPart = Extract<RootPart, { type: "image" }>;

function imageParts(root: RootMessage): ImageRootPart[] {
  if (typeof root.content === "string") return [];
  return root.content.filter((p): p is ImageRootPart => p.type === "image" && typeof p.image === "string");
}

/** An image part written by another backend, when it is one the providers take (URLs are not fetched). */
function foreignImage(part: ImageRootPart): ImagePart | undefined {
  const dataUrl = /^data:([^;,]*)(?:;[^,]*)?;base64,(.*)$/s.exec(part.image);
  if (!dataUrl && /^[a-z][a-z0-9+.-]*:/i.test(part.image)) return undefined;
  const bytes = fromBase64(dataUrl ? dataUrl[2]! : part.image);
  if (bytes === undefined || bytes.length > IMAGE_MAX_BYTES) return undefined;
  return imagePartOf(bytes, dataUrl?.[1] || part.mimeType || part.mediaType);
}

function fromForeignRoot(root: RootMessage): ChatMessage[] {
  const parts = typeof root.content === "string" ? [{ type: "text" as const, text: root.content }] : root.content;
  const text = parts.flatMap((p) => (p.type === "text" ? [p.text] : [])).join("");
  switch (root.role) {
    case "system":
      return [{ role: root.role, content: text }];
    case "user": {
      const images = imageParts(root).flatMap((part) => foreignImage(part) ?? []);
      return [{ role: "user", content: text, ...(images.length > 0 && { images }) }];
    }
    case "assistant": {
      const reasoning = parts.flatMap((p) => (p.type === "reasoning" ? [p.text] : [])).join("");
      const toolCalls = parts.flatMap((p) =>
        p.type === "tool-call"
          ? [{ id: p.toolCallId, name: p.toolName, arguments: typeof p.args === "string" ? p.args : JSON.stringify(p.args ?? {}) }]
          : [],
      );
      return [
        {
          role: "assistant",
          content: text,
          ...(reasoning && { reasoning }),
          ...(toolCalls.length > 0 && { toolCalls }),
        },
      ];
    }
    case "tool":
      return parts.flatMap((p) =>
        p.type === "tool-result"
          ? [{ role: "tool" as const, toolCallId: p.toolCallId, name: p.toolName, content: p.result, ...(p.isError && { isError: true }) }]
          : [],
      );
  }
}

function parseArgs(json: string): unknown {
  try {
    return JSON.parse(json);
  } catch {
    return json;
  }
}
