// Resolves a request context the client sent (docs/request-context.md): parts
// by reference come from this conversation's store, then pre_fetched_blobs,
// then KV get_blob, and when the client holds none of that, one
// request_context_args exec for the whole context. Every wait is bounded.
import type { RequestContext } from "../../proto/gen/agent/v1/agent_pb.ts";
import { toHex } from "../../core/bytes.ts";
import { AppError } from "../../core/errors.ts";
import type { ConversationStore } from "../store/conversation-store.ts";
import type { RequestChannel } from "../agent/request-channel.ts";
import { getClientBlob, MissingClientBlob, seconds } from "../agent/client-blob.ts";
import { nextReply } from "../tools/exec-reply.ts";
import { decodePart, encodePart, mergeContexts, partReferences, type PartKind, type PartReference } from "./parts.ts";
import type { ContextSource } from "./context-source.ts";

/** Parts larger than this are used but not kept: a DO SQLite row holds at most 2 MB. */
const STORED_PART_MAX_BYTES = 1_000_000;
/** The tool call id of request_context_args: it belongs to no tool call, so several asks share it. */
const CONTEXT_EXEC_ID = "request-context";

export interface ResolveDeps {
  channel: RequestChannel;
  store: ConversationStore;
}

export interface ResolveInput {
  source: ContextSource;
  /** pre_fetched_blobs of the run_request, by hex id. */
  prefetched?: Map<string, Uint8Array>;
  /** The bound of each wait for the client (a get_blob, the request_context_args exec). */
  timeoutMs: number;
}

/** The one RequestContext the sources add up to: inline, then dynamic_context, then the parts. */
export async function resolveContext(deps: ResolveDeps, input: ResolveInput): Promise<RequestContext> {
  const { source } = input;
  const refs = source.parts ? partReferences(source.parts) : [];
  const found = await Promise.all(refs.map((ref) => readPart(deps, input, ref)));
  // One question covers every part the client could not hand over as a blob.
  const full = found.some((bytes) => bytes === undefined) ? await askForContext(deps.channel, input.timeoutMs) : undefined;
  const parts = refs.map((ref, i) => {
    const read = found[i];
    const bytes = read?.bytes ?? encodePart(ref.kind, full!);
    const part = decode(ref, bytes);
    // Kept by blob id (content-addressed), so the next turn with this part asks the client nothing.
    if (!read?.stored && bytes.byteLength <= STORED_PART_MAX_BYTES) deps.store.putContextBlob(toHex(ref.blobId), bytes);
    return part;
  });
  return mergeContexts([source.inline, source.parts?.dynamicContext, ...parts]);
}

/** The part's bytes (and whether they came from the store), or undefined when the client does not hold the blob. */
async function readPart(
  deps: ResolveDeps,
  input: ResolveInput,
  ref: PartReference,
): Promise<{ bytes: Uint8Array; stored?: true } | undefined> {
  const id = toHex(ref.blobId);
  const stored = deps.store.contextBlob(id);
  if (stored) return { bytes: stored, stored: true };
  const prefetched = input.prefetched?.get(id);
  if (prefetched && matchesLength(ref, prefetched)) return { bytes: prefetched };
  let bytes: Uint8Array;
  try {
    bytes = await getClientBlob(deps.channel, ref.blobId, input.timeoutMs, `the request context's ${ref.kind} part`);
  } catch (err) {
    if (err instanceof MissingClientBlob) return undefined;
    throw err;
  }
  // A blob of another length than referenced is not the part the action means.
  return matchesLength(ref, bytes) ? { bytes } : undefined;
}

function matchesLength(ref: PartReference, bytes: Uint8Array): boolean {
  return ref.byteLength === 0 || bytes.byteLength === ref.byteLength;
}

function decode(ref: PartReference, bytes: Uint8Array): RequestContext {
  try {
    return decodePart(ref.kind, bytes);
  } catch {
    throw new AppError(
      "invalid_argument",
      `request context blob ${toHex(ref.blobId).slice(0, 12)}… is not a valid ${PART_NAMES[ref.kind]}`,
    );
  }
}

const PART_NAMES: Record<PartKind, string> = {
  rules: "RequestContextRulesPart",
  skills: "RequestContextSkillsPart",
  subagents: "RequestContextSubagentsPart",
  mcps: "RequestContextMcpsPart",
};

/** exec request_context_args → request_context_result: the client's whole current context. */
async function askForContext(channel: RequestChannel, timeoutMs: number): Promise<RequestContext> {
  const call = channel.exec({ case: "requestContextArgs", value: {} }, { toolCallId: CONTEXT_EXEC_ID });
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new AppError("deadline_exceeded", `the client did not send its request context within ${seconds(timeoutMs)}`)),
      timeoutMs,
    );
  });
  const replied = nextReply(call, "requestContextResult");
  // A reply that comes after the deadline (or never) has no one waiting for it.
  replied.catch(() => {});
  try {
    const reply = await Promise.race([replied, deadline]);
    if (!reply.ok) throw new AppError("failed_precondition", `the client could not send its request context: ${reply.error}`);
    const result = reply.value.result;
    switch (result.case) {
      case "success":
        // By exec id: another ask of the same run (a second injection's context) may still be open.
        channel.releaseExec(call.id);
        return result.value.requestContext ?? mergeContexts([]);
      case "error":
        throw new AppError("failed_precondition", `the client could not collect its request context: ${clip(result.value.error)}`);
      case "rejected":
        throw new AppError("failed_precondition", `the client declined to send its request context: ${clip(result.value.reason)}`);
      default:
        throw new AppError("failed_precondition", "the client sent an empty request context result");
    }
  } finally {
    // On a failure the exec stays open, so the failing run aborts it on the client.
    if (timer !== undefined) clearTimeout(timer);
  }
}

/** The client's own words, kept short. */
function clip(text: string): string {
  return text.length > 200 ? `${text.slice(0, 200)}…` : text || "no reason given";
}
