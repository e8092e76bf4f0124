// Images for a text-only model (docs/providers.md#images-for-text-only-models): a model with
// `vision: false` that names an image model gets, in each image's place, what that model wrote
// about it, marked as a description. Each image is described once per conversation (cached in its
// SQLite by the SHA-256 of its bytes and the describing model), by a provider call of the run that
// counts in usage and budgets like any other. One that cannot be described gets today's note.
import { sha256Hex } from "../../core/bytes.ts";
import { ProviderError } from "../../provider/failure.ts";
import type { ChatMessage, ImagePart, ModelConfig } from "../../provider/types.ts";
import { callModel, type ModelCallDeps } from "./model-call.ts";

const DESCRIBE_PROMPT =
  "Describe this image for a reader who cannot see it: what it shows, any text in it word for word, and details a programmer would need (code, errors, diagrams, UI). Answer with the description only.";

interface Describing {
  runId: string;
  conversationId: string;
  model: ModelConfig;
  signal: AbortSignal;
}

/** The messages with each image described, when the model takes no images and names an image model; else as they are. */
export async function withImagesDescribed(deps: ModelCallDeps, input: Describing, messages: ChatMessage[]): Promise<ChatMessage[]> {
  const describer = input.model.vision === false ? input.model.imageModel : undefined;
  if (!describer || !deps.providerFor || !messages.some(hasImages)) return messages;
  const provider = deps.providerFor(describer);
  const out: ChatMessage[] = [];
  for (const message of messages) {
    if ((message.role !== "user" && message.role !== "tool") || !message.images?.length) {
      out.push(message);
      continue;
    }
    const { images, ...rest } = message;
    const notes: string[] = [];
    for (const image of images) notes.push(await describedImage({ ...deps, provider }, input, describer, image, rest.content));
    out.push({ ...rest, content: rest.content ? `${rest.content}\n\n${notes.join("\n\n")}` : notes.join("\n\n") });
  }
  return out;
}

/** The text the image came with, so the description can dwell on what the message asks about. */
const CONTEXT_MAX_CHARS = 2_000;

async function describedImage(
  deps: ModelCallDeps,
  input: Describing,
  describer: ModelConfig,
  image: ImagePart,
  context: string,
): Promise<string> {
  const key = `${await sha256Hex(image.data)}:${describer.name}`;
  let text = deps.store.imageDescription(key);
  if (text === undefined) {
    try {
      const result = await callModel(deps, {
        runId: input.runId,
        conversationId: input.conversationId,
        model: describer,
        messages: [{ role: "user", content: promptFor(context), images: [image] }],
        tools: [],
        forward: false,
        signal: input.signal,
      });
      text = result.assistant.content.trim();
    } catch (err) {
      if (input.signal.aborted || !(err instanceof ProviderError)) throw err;
      return `[An image (${image.mimeType}) was left out: this model does not take images, and ${describer.name} could not describe it.]`;
    }
    if (text === "") return `[An image (${image.mimeType}) was left out: ${describer.name} wrote no description of it.]`;
    deps.store.putImageDescription(key, text);
  }
  return `[A description of an image (${image.mimeType}) by ${describer.name}, given in its place because this model does not take images:]\n${text}`;
}

function promptFor(context: string): string {
  const said = context.trim().slice(0, CONTEXT_MAX_CHARS);
  return said ? `${DESCRIBE_PROMPT}\n\nThe image came with this message:\n${said}` : DESCRIBE_PROMPT;
}

function hasImages(message: ChatMessage): boolean {
  return (message.role === "user" || message.role === "tool") && (message.images?.length ?? 0) > 0;
}
