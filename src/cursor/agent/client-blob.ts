// Blobs the client holds (docs/protocol.md#kv): from the run_request's
// pre_fetched_blobs, or asked for with KV get_blob, every wait bounded and every
// failure naming what was asked for.
import { toHex } from "../../core/bytes.ts";
import { AppError } from "../../core/errors.ts";
import { KvTimeoutError, type RequestChannel } from "./request-channel.ts";

/** The client answered get_blob without the blob (it no longer holds it). */
export class MissingClientBlob extends AppError {
  constructor(what: string, id: Uint8Array) {
    super("failed_precondition", `the client does not have ${what} (blob ${toHex(id).slice(0, 12)}…)`);
  }
}

/**
 * The blob `id`, with get_blob. `what` names it in errors ("image 1 of the message"):
 * deadline_exceeded after `timeoutMs`, MissingClientBlob when the client does not hold it.
 */
export async function getClientBlob(channel: RequestChannel, id: Uint8Array, timeoutMs: number, what: string): Promise<Uint8Array> {
  const reply = await channel.kv({ case: "getBlobArgs", value: { blobId: id } }, timeoutMs).catch((err: unknown) => {
    if (err instanceof KvTimeoutError)
      throw new AppError("deadline_exceeded", `the client did not send ${what} within ${seconds(timeoutMs)}`);
    throw err;
  });
  const result = reply.message.case === "getBlobResult" ? reply.message.value : undefined;
  if (!result || result.error || result.blobData === undefined) throw new MissingClientBlob(what, id);
  return result.blobData;
}

/** The blob from pre_fetched_blobs when the client pushed it there, else with get_blob. */
export async function readClientBlob(
  channel: RequestChannel,
  id: Uint8Array,
  prefetched: Map<string, Uint8Array> | undefined,
  timeoutMs: number,
  what: string,
): Promise<Uint8Array> {
  return prefetched?.get(toHex(id)) ?? (await getClientBlob(channel, id, timeoutMs, what));
}

export function seconds(ms: number): string {
  return `${Math.round(ms / 100) / 10} s`;
}
