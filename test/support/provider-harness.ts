// Drives a provider directly against the fake provider server: the model,
// request and stream helpers the provider test files share.
import { expect } from "vitest";
import { createProvider, type ProviderOptions } from "../../src/provider/index.ts";
import { ProviderError } from "../../src/provider/failure.ts";
import type { ModelConfig, ModelEvent, ModelRequest } from "../../src/provider/types.ts";
import { createScenario, fakeProviderUrl, type Scenario, type ScriptedResponse } from "./fake-provider.ts";

export function providerHarness(defaults: Omit<ModelConfig, "baseUrl">) {
  const aModel = (overrides: Partial<ModelConfig> = {}): ModelConfig => ({
    ...defaults,
    baseUrl: `${fakeProviderUrl()}/v1`,
    ...overrides,
  });

  const aRequest = (scenario: Scenario, overrides: Partial<ModelRequest> = {}): ModelRequest => ({
    model: aModel(),
    messages: [
      { role: "system", content: "You are a coding agent." },
      { role: "user", content: `Fix the bug. ${scenario.marker}` },
    ],
    tools: [],
    signal: new AbortController().signal,
    ...overrides,
  });

  const streamOf = async (responses: ScriptedResponse[], overrides: Partial<ModelRequest> = {}, options: ProviderOptions = {}) => {
    const scenario = await createScenario(responses);
    const events = createProvider(defaults.provider, options).stream(aRequest(scenario, overrides));
    return { scenario, iterator: events[Symbol.asyncIterator]() };
  };

  const failureOf = async (responses: ScriptedResponse[]): Promise<ProviderError> => {
    const { iterator } = await streamOf(responses);
    const { error } = await collectUntilFailure(iterator);
    expect(error).toBeInstanceOf(ProviderError);
    return error as ProviderError;
  };

  return { aModel, aRequest, streamOf, failureOf };
}

export async function collect(iterable: AsyncIterable<ModelEvent>): Promise<ModelEvent[]> {
  const events: ModelEvent[] = [];
  for await (const event of iterable) events.push(event);
  return events;
}

/** Events before the failure, and the failure itself. */
export async function collectUntilFailure(iterator: AsyncIterator<ModelEvent>): Promise<{ events: ModelEvent[]; error: unknown }> {
  const events: ModelEvent[] = [];
  try {
    while (true) {
      const step = await iterator.next();
      if (step.done) throw new Error(`expected a failure, got a complete stream: ${JSON.stringify(events)}`);
      events.push(step.value);
    }
  } catch (error) {
    return { events, error };
  }
}

export function remaining(iterator: AsyncIterator<ModelEvent>): AsyncIterable<ModelEvent> {
  return { [Symbol.asyncIterator]: () => iterator };
}
