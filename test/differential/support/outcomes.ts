// Outcomes as plain data, so a scenario states the reference's result in one
// `toEqual` and a mismatch shows as a readable diff.
import { type Code, ConnectError } from "@connectrpc/connect";
import {
  type ContentItem,
  type ExecutionOutcome,
  ImageDetail,
  type WaitResponse,
} from "../../../src/proto/gen/codex/code_mode/v1/code_mode_pb.ts";
import { bounded } from "./bounds.ts";

export type Item = { text: string } | { image: string; detail?: string } | { audio: string };

export interface Observation {
  cell: string;
  kind: "yielded" | "terminated" | "completed" | "none";
  items: Item[];
  /** Only for completed cells that failed. */
  error?: string;
}

export type WaitObservation = Observation & { state: "live" | "missing" };

function item(content: ContentItem): Item {
  switch (content.item.case) {
    case "text":
      return { text: content.item.value.text };
    case "image": {
      const detail = content.item.value.detail;
      return detail === undefined
        ? { image: content.item.value.imageUrl }
        : { image: content.item.value.imageUrl, detail: ImageDetail[detail]?.toLowerCase() };
    }
    case "audio":
      return { audio: content.item.value.audioUrl };
    default:
      throw new Error("a content item without content");
  }
}

export function observed(outcome: ExecutionOutcome): Observation {
  const base = { cell: outcome.cellId, items: outcome.contentItems.map(item) };
  switch (outcome.outcome.case) {
    case "completed":
      return outcome.outcome.value.errorText === undefined
        ? { ...base, kind: "completed" }
        : { ...base, kind: "completed", error: outcome.outcome.value.errorText };
    case "yielded":
    case "terminated":
      return { ...base, kind: outcome.outcome.case };
    default:
      return { ...base, kind: "none" };
  }
}

export function waited(response: WaitResponse): WaitObservation {
  if (response.state.case === undefined) throw new Error("a WaitResponse without state");
  return { state: response.state.case === "liveCell" ? "live" : "missing", ...observed(response.state.value) };
}

// ---- expected values ----

export const text = (value: string): Item => ({ text: value });

export const yielded = (cell: string, items: Item[] = []): Observation => ({ cell, kind: "yielded", items });
export const terminated = (cell: string, items: Item[] = []): Observation => ({ cell, kind: "terminated", items });
export const completed = (cell: string, items: Item[] = []): Observation => ({ cell, kind: "completed", items });
export const failed = (cell: string, error: string, items: Item[] = []): Observation => ({ cell, kind: "completed", items, error });

export const live = (observation: Observation): WaitObservation => ({ state: "live", ...observation });
/** What Wait and Terminate answer for an unknown or closed cell. */
export const missing = (cell: string): WaitObservation => ({ state: "missing", ...failed(cell, `exec cell ${cell} not found`) });

/** An RPC's failure as plain data. */
export interface RpcError {
  code: Code;
  message: string;
}

/** Awaits a call that must fail and returns its code and raw message. */
export async function rpcError(call: Promise<unknown>, what = "the call's failure", ms?: number): Promise<RpcError> {
  try {
    await bounded(call, what, ms);
  } catch (error) {
    if (error instanceof ConnectError) return { code: error.code, message: error.rawMessage };
    throw error;
  }
  throw new Error(`${what}: the call succeeded`);
}

/** The same, from a settled stream end. */
export function asRpcError(error: ConnectError | undefined): RpcError | undefined {
  return error && { code: error.code, message: error.rawMessage };
}
