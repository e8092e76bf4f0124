// The output helpers of a cell that build items (docs/code-mode.md#output-content):
// `image`, `audio`, `generatedImage` and `content`, as a module of the cell's isolate
// imported by the harness (text for another isolate, like harness.ts). Every rule and
// text here was observed on the reference host; errors are thrown as strings, as Codex
// throws them.

export const MEDIA_MODULE = "media.js";

export const MEDIA_SOURCE = `
// Captured at import, before the harness strips the global scope and the cell runs.
const { stringify, parse } = JSON;
const decodeBase64 = globalThis.atob.bind(globalThis);
const isArray = Array.isArray;

const SERIALIZE = "failed to serialize JavaScript value: expected value at line 1 column 1";
const IMAGE_SHAPE = "image expects a non-empty image URL string, an object with image_url and optional detail, or a raw MCP image block";
const AUDIO_SHAPE = "audio expects a non-empty audio URL string, an object with audio_url, or a raw MCP audio block";
const ONE_BLOCK = "content expects one MCP ContentBlock";
const SHORT_AUDIO = "Audio output omitted because the clip is shorter than 25 ms; use a longer clip.";
const MIN_AUDIO_MS = 25;
const DETAILS = ["auto", "low", "high", "original"];
const OCTET_STREAM = "application/octet-stream";

function isObject(value) {
  return value !== null && typeof value === "object";
}

// Codex turns the value into JSON first: a function is no value at all.
function refuseFunction(value) {
  if (typeof value === "function") throw SERIALIZE;
}

function mimeOf(block) {
  return typeof block.mimeType === "string" ? block.mimeType : OCTET_STREAM;
}

export function imageItem(value, detail) {
  refuseFunction(value);
  let url;
  let ownDetail;
  if (typeof value === "string") {
    url = value;
  } else if (isObject(value)) {
    if (typeof value.image_url === "string") {
      url = value.image_url;
      ownDetail = value.detail;
    } else if (typeof value.type === "string") {
      if (value.type !== "image") throw "image only accepts MCP image blocks, got " + stringify(value.type);
      if (typeof value.data !== "string" || value.data === "") throw "image expected MCP image data";
      url = "data:" + mimeOf(value) + ";base64," + value.data;
    }
  }
  if (typeof url !== "string" || url === "") throw IMAGE_SHAPE;
  const lower = url.toLowerCase();
  if (!lower.startsWith("data:")) {
    if (lower.startsWith("http://") || lower.startsWith("https://")) {
      throw "Tool call failed: remote image URLs are not supported in tool outputs. Pass a base64 data URI instead";
    }
    throw "Tool call failed: invalid image output. Pass a base64 data URI instead";
  }
  const chosen = detail ?? ownDetail;
  if (chosen === undefined || chosen === null) return { type: "input_image", image_url: url, detail: "high" };
  if (typeof chosen !== "string") throw "image detail must be a string when provided";
  const normalized = chosen.toLowerCase();
  if (!DETAILS.includes(normalized)) throw "image detail must be one of: auto, low, high, original";
  return { type: "input_image", image_url: url, detail: normalized };
}

export function audioItem(value) {
  refuseFunction(value);
  let url;
  if (typeof value === "string") {
    url = value;
  } else if (isObject(value)) {
    if (typeof value.audio_url === "string") {
      url = value.audio_url;
    } else if (typeof value.type === "string") {
      if (value.type !== "audio") throw "audio only accepts MCP audio blocks, got " + stringify(value.type);
      if (typeof value.data !== "string" || value.data === "") throw "audio expected MCP audio data";
      url = "data:" + mimeOf(value) + ";base64," + value.data;
    }
  }
  if (typeof url !== "string" || url === "") throw AUDIO_SHAPE;
  if (!url.toLowerCase().startsWith("data:")) throw "Tool call failed: invalid audio output. Pass a base64 data URI instead";
  return audioOrNotice(url);
}

function audioOrNotice(url) {
  return isShortClip(url) ? { type: "input_text", text: SHORT_AUDIO } : { type: "input_audio", audio_url: url };
}

// Codex measures the clip and replaces one shorter than 25 ms by a notice. Only WAV is
// measured here (docs/code-mode.md#platform-differences); other audio is kept as it is.
function isShortClip(url) {
  const comma = url.indexOf(",");
  if (comma < 0) return false;
  const params = url.slice(5, comma).split(";").map((part) => part.trim().toLowerCase());
  if (!params.includes("base64")) return false;
  let bytes;
  try {
    bytes = decodeBase64(url.slice(comma + 1));
  } catch {
    return false;
  }
  const clip = wavClip(bytes);
  return clip !== undefined && clip.frames * 1000 < MIN_AUDIO_MS * clip.sampleRate;
}

function u32(bytes, at) {
  return (bytes.charCodeAt(at) | (bytes.charCodeAt(at + 1) << 8) | (bytes.charCodeAt(at + 2) << 16) | (bytes.charCodeAt(at + 3) << 24)) >>> 0;
}

// RIFF/WAVE chunks: the format's sample rate and frame size, and the frames of the
// data chunk that are actually present (a streaming header may claim more).
function wavClip(bytes) {
  if (bytes.length < 12 || bytes.slice(0, 4) !== "RIFF" || bytes.slice(8, 12) !== "WAVE") return undefined;
  let sampleRate = 0;
  let blockAlign = 0;
  let at = 12;
  while (at + 8 <= bytes.length) {
    const id = bytes.slice(at, at + 4);
    const size = u32(bytes, at + 4);
    const body = at + 8;
    if (id === "fmt " && body + 14 <= bytes.length) {
      sampleRate = u32(bytes, body + 4);
      blockAlign = bytes.charCodeAt(body + 12) | (bytes.charCodeAt(body + 13) << 8);
    } else if (id === "data") {
      if (sampleRate === 0 || blockAlign === 0) return undefined;
      return { frames: Math.floor(Math.min(size, bytes.length - body) / blockAlign), sampleRate };
    }
    at = body + size + (size % 2);
  }
  return undefined;
}

// generatedImage(result): its image (with the result's own detail), then its output hint.
export function generatedImageItems(value) {
  if (!isObject(value) && typeof value !== "function") throw "generatedImage expects an image generation result object";
  const hint = value.output_hint;
  if (hint !== undefined && typeof hint !== "string") throw "generatedImage output_hint must be a string when provided";
  const image = imageItem(value, undefined);
  return hint === undefined ? [image] : [image, { type: "input_text", text: hint }];
}

function isString(value) {
  return typeof value === "string";
}

function inlineUrl(block) {
  return block.data.toLowerCase().startsWith("data:") ? block.data : "data:" + mimeOf(block) + ";base64," + block.data;
}

function hasMedia(block) {
  return isString(block.data) && (block.mimeType === undefined || block.mimeType === null || isString(block.mimeType));
}

// One MCP ContentBlock as an item. Codex reads the block through JSON; resource links
// and embedded resources become their JSON text.
export function contentBlockItem(value) {
  if (value === undefined) throw ONE_BLOCK;
  const json = stringify(value);
  if (json === undefined) throw SERIALIZE;
  const block = parse(json);
  if (!isObject(block) || isArray(block)) throw ONE_BLOCK;
  switch (block.type) {
    case "text":
      if (isString(block.text)) return { type: "input_text", text: block.text };
      break;
    case "image":
      if (hasMedia(block)) return { type: "input_image", image_url: inlineUrl(block), detail: "high" };
      break;
    case "audio":
      if (hasMedia(block)) return audioOrNotice(inlineUrl(block));
      break;
    case "resource_link":
      if (isString(block.uri) && isString(block.name)) return { type: "input_text", text: json };
      break;
    case "resource": {
      const resource = block.resource;
      if (isObject(resource) && isString(resource.uri) && (isString(resource.text) || isString(resource.blob))) {
        return { type: "input_text", text: json };
      }
      break;
    }
  }
  throw ONE_BLOCK;
}
`;
