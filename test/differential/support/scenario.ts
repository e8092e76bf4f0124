// Scenarios are written once and run against every target
// (docs/code-mode.md#differential-suite). A scenario gets the target and a
// small toolkit whose sessions, subscriptions and executions are cleaned up
// when its test ends. A file's scenarios run concurrently, on every target at
// once: each has its own sessions, and most of their time is the hosts' timers.
import { AsyncLocalStorage } from "node:async_hooks";
import { randomUUID } from "node:crypto";
import { aroundEach, describe, type TestContext } from "vitest";
import type { WaitResponse } from "../../../src/proto/gen/codex/code_mode/v1/code_mode_pb.ts";
import { AT_ONCE_MS, bounded } from "./bounds.ts";
import { type Execution, type ExecuteOptions, execute } from "./execute.ts";
import { type RpcError, rpcError, waited, type WaitObservation } from "./outcomes.ts";
import { Session, type SessionOptions } from "./session.ts";
import { type CodeModeClient, codeModeTargets, type Target, type TargetOptions } from "./targets.ts";
import { type SubscribeOptions, ToolSubscription } from "./tools.ts";

export interface Scenario {
  target: Target;
  client: CodeModeClient;
  open(options?: SessionOptions): Promise<Session>;
  subscribe(session: Session, options?: SubscribeOptions): Promise<ToolSubscription>;
  execute(session: Session, source: string, options?: ExecuteOptions): Execution;
  /** A Wait's raw response (bounded). */
  waitRaw(
    session: Session,
    cellId: string,
    yieldTimeMs: number,
    options?: { waitId?: string; signal?: AbortSignal },
  ): Promise<WaitResponse>;
  wait(
    session: Session,
    cellId: string,
    yieldTimeMs: number,
    options?: { waitId?: string; signal?: AbortSignal },
  ): Promise<WaitObservation>;
  terminate(session: Session, cellId: string): Promise<WaitObservation>;
  /**
   * Two Waits sent together: one is refused at once, the other is then the
   * active observer. Either may arrive first, so which is which is found out,
   * not assumed (the wire gives no admission signal for a unary Wait).
   */
  concurrentWaits(session: Session, cellId: string, yieldTimes: [number, number]): Promise<{ refused: RpcError; active: ActiveWait }>;
}

interface ActiveWait {
  waitId: string;
  yieldTimeMs: number;
  response: Promise<WaitResponse>;
  /** Its caller goes away. */
  drop(): void;
}

/** The test a toolkit call is made in (vitest's own `onTestFinished` cannot tell concurrent tests apart). */
const currentTest = new AsyncLocalStorage<TestContext>();

function onTestFinished(cleanup: () => unknown): void {
  const test = currentTest.getStore();
  if (!test) throw new Error("a scenario's toolkit was used outside of its test");
  test.onTestFinished(async () => {
    await cleanup();
  });
}

function toolkit(target: Target): Scenario {
  const { client } = target;
  const waitRaw: Scenario["waitRaw"] = (session, cellId, yieldTimeMs, options = {}) =>
    bounded(
      client.wait(
        { sessionId: session.id, cellId, waitId: options.waitId ?? randomUUID(), yieldTimeMs: BigInt(yieldTimeMs) },
        { signal: options.signal },
      ),
      `Wait on cell ${cellId}`,
      yieldTimeMs + 10_000,
    );
  const concurrentWaits: Scenario["concurrentWaits"] = async (session, cellId, yieldTimes) => {
    const waits = yieldTimes.map((yieldTimeMs): ActiveWait => {
      const waitId = randomUUID();
      const caller = new AbortController();
      const response = client.wait({ sessionId: session.id, cellId, waitId, yieldTimeMs: BigInt(yieldTimeMs) }, { signal: caller.signal });
      response.catch(() => {});
      onTestFinished(() => caller.abort());
      return { waitId, yieldTimeMs, response, drop: () => caller.abort() };
    });
    const settled = waits.map((w, index) =>
      w.response.then(
        () => ({ index, error: undefined }),
        (error: unknown) => ({ index, error }),
      ),
    );
    const first = await bounded(Promise.race(settled), "one of two concurrent waits to be refused", AT_ONCE_MS);
    const refused = await rpcError(Promise.reject(first.error ?? new Error("a concurrent wait succeeded first")));
    return { refused, active: waits[1 - first.index]! };
  };
  return {
    target,
    concurrentWaits,
    client,
    open: async (options) => {
      const session = await Session.open(client, options);
      onTestFinished(async () => {
        if (!session.leaseEnded) await client.closeSession({ sessionId: session.id }).catch(() => {});
        session.dropLease();
      });
      return session;
    },
    subscribe: async (session, options) => {
      const subscription = await ToolSubscription.open(client, session.id, target.subscriptionAccepted, options);
      onTestFinished(() => subscription.close());
      return subscription;
    },
    execute: (session, source, options) => {
      const execution = execute(client, session.id, source, options);
      onTestFinished(() => execution.abort());
      return execution;
    },
    waitRaw,
    wait: async (session, cellId, yieldTimeMs, options) => waited(await waitRaw(session, cellId, yieldTimeMs, options)),
    terminate: async (session, cellId) =>
      waited(await bounded(client.terminate({ sessionId: session.id, cellId }), `Terminate of cell ${cellId}`)),
  };
}

/**
 * One `describe` per target (as `describe.each`, but a target that is not running is skipped).
 * The targets' describes and their tests run concurrently (vitest's `maxConcurrency`, 5 at a
 * time in each); each test's toolkit calls are tied to it through `currentTest`. With
 * `{ heartbeats: false }` the targets' clients are plain ones (docs/code-mode.md#leases).
 */
export function describeTargets(title: string, scenarios: (scenario: Scenario) => void, options?: TargetOptions): void {
  describeEachTarget(title, scenarios, true, options);
}

/** The same, one scenario at a time, target after target. */
export function describeTargetsInTurn(title: string, scenarios: (scenario: Scenario) => void): void {
  describeEachTarget(title, scenarios, false);
}

function describeEachTarget(title: string, scenarios: (scenario: Scenario) => void, concurrent: boolean, options?: TargetOptions): void {
  for (const target of codeModeTargets(options)) {
    describe.skipIf(target.skipped !== undefined)(`${title} (on ${target.name})`, { concurrent }, () => {
      aroundEach((runTest, test) => currentTest.run(test, runTest));
      scenarios(toolkit(target));
    });
  }
}
