// The images attached to a user message (selected_context.selected_images): their
// bytes, inline or from the client's blobs, typed for the providers
// (docs/protocol.md#run-request).
import type { SelectedImage } from "../../proto/gen/agent/v1/agent_pb.ts";
import { AppError } from "../../core/errors.ts";
import { IMAGE_MAX_BYTES, imagePartOf } from "../../provider/images.ts";
import type { ImagePart } from "../../provider/types.ts";
import type { RequestChannel } from "./request-channel.ts";
import { readClientBlob } from "./client-blob.ts";

/** How many of a message's images are read from the client at once. */
const PARALLEL_READS = 4;

export async function userImages(
  channel: RequestChannel,
  selected: readonly SelectedImage[],
  prefetched: Map<string, Uint8Array> | undefined,
  timeoutMs: number,
): Promise<ImagePart[]> {
  return mapBounded(selected, PARALLEL_READS, async (image, index) => {
    const which = `image ${index + 1} of the message`;
    const bytes = await imageBytes(channel, image, { prefetched, timeoutMs }, which);
    if (bytes.byteLength > IMAGE_MAX_BYTES) {
      throw new AppError("invalid_argument", `${which} is larger than ${IMAGE_MAX_BYTES / 1_000_000} MB, more than every provider takes`);
    }
    const part = imagePartOf(bytes, image.mimeType);
    if (!part) throw new AppError("invalid_argument", `${which} is not a PNG, JPEG, GIF or WebP image`);
    return part;
  });
}

/** `fn` over the items, at most `limit` at once, results in the items' order; the first failure stops taking more. */
async function mapBounded<T, R>(items: readonly T[], limit: number, fn: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  let failed = false;
  const worker = async () => {
    while (!failed && next < items.length) {
      const index = next++;
      try {
        results[index] = await fn(items[index]!, index);
      } catch (err) {
        failed = true;
        throw err;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

async function imageBytes(
  channel: RequestChannel,
  image: SelectedImage,
  blobs: { prefetched: Map<string, Uint8Array> | undefined; timeoutMs: number },
  which: string,
): Promise<Uint8Array> {
  const source = image.dataOrBlobId;
  const fromBlob = (id: Uint8Array) => readClientBlob(channel, id, blobs.prefetched, blobs.timeoutMs, which);
  switch (source.case) {
    case "data":
      return source.value;
    case "blobIdWithData":
      return source.value.data.byteLength > 0 ? source.value.data : fromBlob(source.value.blobId);
    case "blobId":
      return fromBlob(source.value);
    case undefined:
      throw new AppError("invalid_argument", `${which} has neither data nor a blob id`);
  }
}
