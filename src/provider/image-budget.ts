// How many images one provider request carries (docs/providers.md#images): the
// newest ones, up to a count and a size; each older one becomes a short note in
// its message's text. Decided from the messages alone, so the same history gives
// the same request, and an image once left out stays out on later requests.
import type { ChatMessage, ImagePart, ModelRequest } from "./types.ts";

/** Images per request: well inside every API's limit (Anthropic's request-size limit is the tightest). */
export const REQUEST_IMAGES_MAX = 20;
/** Image data per request, in base64 characters (20 MB; about 15 MB of image bytes). */
const REQUEST_IMAGE_CHARS_MAX = 20_000_000;

type WithImages = Extract<ChatMessage, { role: "user" | "tool" }>;

/** The request with only the newest images that fit; the rest noted in their messages' text. */
export function withinImageBudget(request: ModelRequest): ModelRequest {
  const cut = firstKept(request.messages);
  if (cut === undefined) return request;
  return { ...request, messages: request.messages.map((message, m) => withKept(message, m, cut)) };
}

/** Where an image sits: its message's index, then its own. */
type Place = [message: number, image: number];

/**
 * The oldest image kept: images are kept newest first until one does not fit; it and
 * every older image are left out. Undefined when all fit.
 */
function firstKept(messages: readonly ChatMessage[]): Place | undefined {
  let count = 0;
  let chars = 0;
  let oldest: Place = [messages.length, 0];
  for (let m = messages.length - 1; m >= 0; m--) {
    const images = imagesOf(messages[m]!);
    for (let i = images.length - 1; i >= 0; i--) {
      count++;
      chars += images[i]!.data.length;
      if (count > REQUEST_IMAGES_MAX || chars > REQUEST_IMAGE_CHARS_MAX) return oldest;
      oldest = [m, i];
    }
  }
  return undefined;
}

function withKept(message: ChatMessage, m: number, [cutMessage, cutImage]: Place): ChatMessage {
  const images = imagesOf(message);
  if (images.length === 0 || m > cutMessage) return message;
  const from = m === cutMessage ? cutImage : images.length;
  if (from === 0) return message;
  const { images: _all, ...rest } = message as WithImages;
  const notes = images.slice(0, from).map(note).join("\n");
  const left = images.slice(from);
  return { ...rest, content: rest.content ? `${rest.content}\n\n${notes}` : notes, ...(left.length > 0 && { images: left }) };
}

function note(image: ImagePart): string {
  return `[An earlier image (${image.mimeType}) was left out: one request carries the newest ${REQUEST_IMAGES_MAX} images at most, 20 MB in all.]`;
}

function imagesOf(message: ChatMessage): ImagePart[] {
  return (message.role === "user" || message.role === "tool") && message.images ? message.images : [];
}
