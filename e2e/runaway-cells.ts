// Runaway code-mode cells under `wrangler dev` with its cell host (docs/code-mode.md#cell-host):
// while one session's cell spins (`while (true) {}`) and another's allocates without end,
// a third session completes a cell and a Cursor turn completes, each within a stated bound;
// then the two runaway cells end as terminated, the spinning one at the cell host's CPU cap.
import { createClient, type Interceptor } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-node";
import { CodeModeHost, type ExecutionOutcome } from "../src/proto/gen/codex/code_mode/v1/code_mode_pb.ts";
import { withTimeout } from "../test/support/deferred.ts";

/** The CPU cap main.ts gives its cell host, so the spinning cell ends within the check's time. */
export const E2E_CELL_CPU_CAP_MS = 3_000;
/** A quick cell or a turn beside the runaway ones ends within this. */
const SERVED_WITHIN_MS = 10_000;
/** A runaway cell ends within this past its limit. */
const LIMIT_SLACK_MS = 5_000;

interface RunawayCellsOptions {
  baseUrl: string;
  token: string;
  /** One Cursor turn, asserted by the caller. */
  turn: () => Promise<unknown>;
}

export async function checkRunawayCells(options: RunawayCellsOptions): Promise<void> {
  const bearer: Interceptor = (next) => (request) => {
    request.header.set("authorization", `Bearer ${options.token}`);
    return next(request);
  };
  const client = createClient(
    CodeModeHost,
    createConnectTransport({ baseUrl: options.baseUrl, httpVersion: "1.1", interceptors: [bearer] }),
  );
  const leases: AbortController[] = [];
  /** A session whose lease stream stays open (read in the background) until the check ends. */
  const openSession = async (): Promise<string> => {
    const lease = new AbortController();
    leases.push(lease);
    const events = client.openSession({}, { signal: lease.signal })[Symbol.asyncIterator]();
    const first = await withTimeout(events.next(), SERVED_WITHIN_MS, "OpenSession's opened event");
    const opened = first.value?.event;
    if (opened?.case !== "opened") throw new Error(`OpenSession answered ${opened?.case ?? "nothing"} first`);
    void (async () => {
      while (!(await events.next().catch(() => ({ done: true }))).done);
    })();
    return opened.value.sessionId;
  };
  const execute = async (sessionId: string, source: string): Promise<ExecutionOutcome> => {
    const stream = client.execute({ sessionId, executionId: crypto.randomUUID(), toolCallId: "call-1", source, yieldTimeMs: 120_000n });
    for await (const event of stream) if (event.event.case === "outcome") return event.event.value;
    throw new Error("Execute ended without an outcome");
  };
  try {
    const started = Date.now();
    const spinning = execute(await openSession(), "let n = 0; while (true) { n++; }");
    const hogging = execute(await openSession(), "const kept = []; for (let i = 0; ; i++) kept.push(new Array(1 << 20).fill(i));");
    const quick = await withTimeout(
      execute(await openSession(), 'text("still served")'),
      SERVED_WITHIN_MS,
      "a cell beside two runaway ones",
    );
    if (quick.outcome.case !== "completed" || quick.contentItems.length !== 1) {
      throw new Error(`the quick cell ended ${quick.outcome.case} with ${quick.contentItems.length} items`);
    }
    await withTimeout(options.turn(), SERVED_WITHIN_MS, "a Cursor turn beside two runaway cells");
    const spun = await withTimeout(spinning, E2E_CELL_CPU_CAP_MS + LIMIT_SLACK_MS, "the spinning cell's end");
    if (spun.outcome.case !== "terminated") throw new Error(`the spinning cell ended ${spun.outcome.case}, not terminated`);
    if (Date.now() - started < E2E_CELL_CPU_CAP_MS) throw new Error("the spinning cell ended before its CPU limit");
    const hogged = await withTimeout(hogging, LIMIT_SLACK_MS, "the allocating cell's end");
    if (hogged.outcome.case !== "terminated") throw new Error(`the allocating cell ended ${hogged.outcome.case}, not terminated`);
  } finally {
    for (const lease of leases) lease.abort();
  }
}
