// The fake provider's wire contract, shared by the Node server and the test
// client that runs in the Workers runtime.

/** One SSE event `data: <data>\n\n`, flushed at once. */
interface DataStep {
  data: string;
}
/** Bytes written as they are. */
interface RawStep {
  raw: string;
}
/** Pause here until the test releases the gate; reaching it is observable. */
interface GateStep {
  gate: string;
}
/** Never finish; the response ends only when the client goes away. */
interface HangStep {
  hang: true;
}
/** Destroy the socket now, mid-body. */
interface CutStep {
  cut: true;
}

export type Step = DataStep | RawStep | GateStep | HangStep | CutStep;

export interface ScriptedResponse {
  /** Default 200. */
  status?: number;
  headers?: Record<string, string>;
  /** A whole non-streaming body. */
  body?: string;
  /** A streamed body (content-type text/event-stream unless headers say otherwise). */
  steps?: Step[];
  /** Read the request, then never answer (no status line, no headers) until the client goes away. */
  silent?: true;
}

export interface ScenarioDefinition {
  responses: ScriptedResponse[];
}

export interface RecordedRequest {
  method: string;
  path: string;
  /** Lower-cased names. */
  headers: Record<string, string>;
  body: string;
}

export const SCENARIO_HEADER = "x-fake-scenario";
/** Scenario ids as they appear in markers (`scenario:<id>`) and paths. */
export const SCENARIO_ID_PATTERN = /scenario:([A-Za-z0-9_-]+)/;
