// Images as every provider takes them: PNG, JPEG, GIF or WebP, typed by their
// bytes, and the short note a model without vision gets instead
// (docs/providers.md#images).
import { toBase64 } from "../core/bytes.ts";
import { ProviderError } from "./failure.ts";
import type { ChatMessage, ImagePart, ModelConfig, ModelRequest } from "./types.ts";

/**
 * Anthropic's per-image limit (5 MB, of base64 to be safe), the smallest of the three
 * APIs: a larger image would fail every later request of the conversation.
 */
export const IMAGE_MAX_BYTES = 3_750_000;

/** The image types all three APIs accept. */
const SUPPORTED_TYPES = new Set(["image/png", "image/jpeg", "image/gif", "image/webp"]);

/** The type the bytes themselves say, when they are one of the supported formats. */
function sniffImageType(bytes: Uint8Array): string | undefined {
  const at = (offset: number, signature: number[]) => signature.every((b, i) => bytes[offset + i] === b);
  const ascii = (text: string) => [...text].map((c) => c.charCodeAt(0));
  if (at(0, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return "image/png";
  if (at(0, [0xff, 0xd8, 0xff])) return "image/jpeg";
  if (at(0, ascii("GIF87a")) || at(0, ascii("GIF89a"))) return "image/gif";
  if (at(0, ascii("RIFF")) && at(8, ascii("WEBP"))) return "image/webp";
  return undefined;
}

/**
 * The bytes as an image part, or undefined when they are not a supported image.
 * The sniffed type wins over the declared one: a PNG labelled JPEG is refused by
 * Anthropic ("does not match the provided media type").
 */
export function imagePartOf(bytes: Uint8Array, declaredType?: string): ImagePart | undefined {
  if (bytes.byteLength === 0) return undefined;
  const mimeType = sniffImageType(bytes) ?? normalizedType(declaredType);
  return mimeType ? { mimeType, data: toBase64(bytes) } : undefined;
}

function normalizedType(declared: string | undefined): string | undefined {
  const type = declared?.split(";")[0]?.trim().toLowerCase();
  if (type === "image/jpg") return "image/jpeg";
  return type && SUPPORTED_TYPES.has(type) ? type : undefined;
}

export function dataUri(image: ImagePart): string {
  return `data:${image.mimeType};base64,${image.data}`;
}

/**
 * The text before the images of a tool result that go in a user message of their
 * own (Chat and Responses take only text as a tool's output).
 */
export function toolImagesCaption(message: Extract<ChatMessage, { role: "tool" }>): string {
  const count = message.images?.length ?? 0;
  return `${count === 1 ? "The image" : `The ${count} images`} returned by the ${message.name} call ${message.toolCallId}:`;
}

/** The request as the model can take it: for a model without vision, every image becomes a note in its message's text. */
export function forModelVision(request: ModelRequest): ModelRequest {
  if (request.model.vision !== false || !request.messages.some(hasImages)) return request;
  return { ...request, messages: request.messages.map(withImageNotes) };
}

function hasImages(message: ChatMessage): boolean {
  return (message.role === "user" || message.role === "tool") && (message.images?.length ?? 0) > 0;
}

function withImageNotes(message: ChatMessage): ChatMessage {
  if ((message.role !== "user" && message.role !== "tool") || !message.images?.length) return message;
  const { images, ...rest } = message;
  const notes = images.map((image) => `[An image (${image.mimeType}) was left out: this model does not take images.]`).join("\n");
  return { ...rest, content: rest.content ? `${rest.content}\n\n${notes}` : notes };
}

/**
 * A refusal (HTTP 400 or 422) of a request that carried images, by a model not configured
 * with `vision: false`: text-only servers (DeepSeek, Kimi) refuse `image_url`, so the
 * message says what to configure. It names no prompt text and no key.
 */
export function withVisionHint(error: ProviderError, model: ModelConfig, messages: readonly ChatMessage[]): ProviderError {
  if (model.vision === false || (error.status !== 400 && error.status !== 422) || !messages.some(hasImages)) return error;
  const hint = `the request carried images; if this model does not take images, set "vision": false for it in BYOK_MODELS`;
  return new ProviderError(error.kind, `${error.message} (${hint})`, {
    status: error.status,
    ...(error.retryAfterMs !== undefined && { retryAfterMs: error.retryAfterMs }),
  });
}
