// The messages between a session's RemoteCellRunner and a cell runner in another process
// (docs/code-mode.md#cell-host). JSON over one WebSocket per cell; a message longer than
// PART_CHARS goes as several text frames (a leading "+" marks every part but the last), so no
// frame meets a runtime's message-size limit whatever the size of a snapshot or an image.
import type { CellEvent, CellLaunch, CellRunResult, ToolReply } from "./runner.ts";

/** From the session to the runner. */
export type SessionMessage =
  | { t: "start"; launch: CellLaunch; cpuMs: number }
  | { t: "probe"; source: string }
  | { t: "tool-reply"; id: number; reply: ToolReply }
  | { t: "stop" };

/** From the runner (or the cell host that owns it) to the session. */
export type RunnerMessage =
  | { t: "started" }
  /** From the cell host: the start reached the cell's process (see remote-runner.ts on START_FALLBACK_MS). */
  | { t: "delivered" }
  | { t: "events"; events: CellEvent[] }
  | { t: "tool"; id: number; index: number; inputJson: string | undefined }
  | { t: "result"; result: CellRunResult }
  | { t: "probe-result"; text: string | undefined };

const PART_CHARS = 256 * 1024;
const MORE = "+";
const LAST = ".";

/** Sends one message as its frames. */
export function sendMessage(socket: { send(frame: string): void }, message: SessionMessage | RunnerMessage): void {
  for (const frame of framesOf(message)) socket.send(frame);
}

/** The frames of one message, in order. */
function framesOf(message: SessionMessage | RunnerMessage): string[] {
  const json = JSON.stringify(message);
  const frames: string[] = [];
  for (let at = 0; at < json.length; at += PART_CHARS) {
    const part = json.slice(at, at + PART_CHARS);
    frames.push((at + PART_CHARS < json.length ? MORE : LAST) + part);
  }
  return frames;
}

/** Joins frames into messages; `push` returns the message a frame completes, if any. */
export class FrameReader<T> {
  #parts: string[] = [];

  push(frame: string): T | undefined {
    const mark = frame[0];
    if (mark !== MORE && mark !== LAST) throw new Error("not a cell-wire frame");
    this.#parts.push(frame.slice(1));
    if (mark === MORE) return undefined;
    const json = this.#parts.join("");
    this.#parts = [];
    return JSON.parse(json) as T;
  }
}
