// Properties of the three providers' stream parsers behind the SSE reader
// (src/provider/sse.ts, openai-chat-stream.ts, openai-responses-stream.ts,
// anthropic-stream.ts): a valid stream cut anywhere says the same as uncut and
// says the answer; a truncated one says all of it or fails with a ProviderError;
// garbage fails with a ProviderError or says something well formed. Never
// another throw, never a hang (each case is bounded, support/fuzz-property.ts).
import fc from "fast-check";
import { expect } from "vitest";
import { AnthropicStreamParser } from "../../../src/provider/anthropic-stream.ts";
import { ProviderError } from "../../../src/provider/failure.ts";
import { ChatStreamParser } from "../../../src/provider/openai-chat-stream.ts";
import { ResponsesStreamParser } from "../../../src/provider/openai-responses-stream.ts";
import type { StreamMapper } from "../../../src/provider/stream-loop.ts";
import { chunksOf } from "../support/chunks.ts";
import type { FuzzProperty } from "../support/fuzz-property.ts";
import { readModelStream, type StreamOutcome } from "../support/model-stream.ts";
import {
  type Answer,
  answerArbitrary,
  anthropicWire,
  chatWire,
  expectedSaid,
  layoutArbitrary,
  responsesWire,
  said,
  shapeProblems,
  sseText,
} from "../support/provider-streams.ts";

interface ProviderUnderTest {
  name: string;
  mapper: () => StreamMapper;
  wire: (answer: Answer) => { event?: string; data: string }[];
  /** What joins separate thinking pieces in what the parser says. */
  thinkingSeparator: string;
  /** Event types and payload keys the parser knows, for garbage that gets past its first checks. */
  types: string[];
  keys: string[];
}

const SECRETS = ["sk-fuzz-secret-0123456789"];

const PROVIDERS: ProviderUnderTest[] = [
  {
    name: "OpenAI Chat Completions",
    mapper: () => new ChatStreamParser(SECRETS),
    wire: chatWire,
    thinkingSeparator: "",
    types: [],
    keys: [
      "id",
      "choices",
      "index",
      "delta",
      "content",
      "reasoning_content",
      "reasoning",
      "tool_calls",
      "function",
      "name",
      "arguments",
      "finish_reason",
      "usage",
      "prompt_tokens",
      "completion_tokens",
      "error",
      "message",
      "code",
    ],
  },
  {
    name: "OpenAI Responses",
    mapper: () => new ResponsesStreamParser(SECRETS),
    wire: responsesWire,
    thinkingSeparator: "\n\n",
    types: [
      "response.created",
      "response.output_item.added",
      "response.output_item.done",
      "response.reasoning_summary_text.delta",
      "response.reasoning_text.delta",
      "response.output_text.delta",
      "response.output_text.done",
      "response.refusal.delta",
      "response.function_call_arguments.delta",
      "response.function_call_arguments.done",
      "response.custom_tool_call_input.delta",
      "response.custom_tool_call_input.done",
      "response.completed",
      "response.incomplete",
      "response.failed",
      "error",
    ],
    keys: [
      "type",
      "response",
      "id",
      "item",
      "item_id",
      "output_index",
      "summary_index",
      "content_index",
      "delta",
      "arguments",
      "input",
      "text",
      "call_id",
      "name",
      "content",
      "output",
      "usage",
      "encrypted_content",
      "incomplete_details",
      "reason",
      "error",
      "code",
      "message",
    ],
  },
  {
    name: "Anthropic Messages",
    mapper: () => new AnthropicStreamParser(SECRETS),
    wire: anthropicWire,
    thinkingSeparator: "",
    types: [
      "message_start",
      "content_block_start",
      "content_block_delta",
      "content_block_stop",
      "message_delta",
      "message_stop",
      "ping",
      "error",
    ],
    keys: [
      "type",
      "index",
      "message",
      "id",
      "usage",
      "content_block",
      "delta",
      "text",
      "thinking",
      "signature",
      "partial_json",
      "stop_reason",
      "name",
      "input",
      "data",
      "input_tokens",
      "output_tokens",
      "error",
    ],
  },
];

const encoder = new TextEncoder();

/** A valid stream of an arbitrary answer: the answer, its bytes, and a cut of them. */
function validStream(provider: ProviderUnderTest) {
  return fc.tuple(answerArbitrary, layoutArbitrary).chain(([answer, layout]) => {
    const bytes = encoder.encode(sseText(provider.wire(answer), layout));
    return fc.tuple(fc.constant(answer), fc.constant(bytes), chunksOf(bytes));
  });
}

/** Only ProviderError, and each outcome's events well formed. */
function expectClean(outcome: StreamOutcome): void {
  if (outcome.error !== undefined) expect(outcome.error).toBeInstanceOf(ProviderError);
  expect(shapeProblems(outcome.events)).toEqual([]);
}

/** JSON made of the keys a parser looks for, nested, with arbitrary values. */
function garbageJson(provider: ProviderUnderTest): fc.Arbitrary<unknown> {
  const { value } = fc.letrec((tie) => ({
    value: fc.oneof({ depthSize: "small" }, fc.jsonValue({ maxDepth: 1 }), tie("object"), fc.array(tie("value"), { maxLength: 3 })),
    object: fc.dictionary(fc.constantFrom(...provider.keys), tie("value"), { maxKeys: 5 }),
  }));
  const typed =
    provider.types.length > 0
      ? fc
          .tuple(fc.constantFrom(...provider.types), fc.dictionary(fc.constantFrom(...provider.keys), value, { maxKeys: 5 }))
          .map(([type, rest]) => ({ ...rest, type }))
      : fc.dictionary(fc.constantFrom(...provider.keys), value, { maxKeys: 5 });
  return fc.oneof(typed, value);
}

function providerProperties(provider: ProviderUnderTest): FuzzProperty[] {
  return [
    {
      name: `${provider.name}: a valid stream cut anywhere says what it says uncut, which is the answer`,
      runs: 150,
      property: fc.asyncProperty(validStream(provider), async ([answer, bytes, chunks]) => {
        const whole = await readModelStream(provider.mapper(), [bytes]);
        expect(whole.error).toBeUndefined();
        expect(said(whole.events)).toEqual(expectedSaid(answer, provider.thinkingSeparator));
        expect(shapeProblems(whole.events)).toEqual([]);
        const cut = await readModelStream(provider.mapper(), chunks);
        expect(cut.error).toBeUndefined();
        expect(cut.events).toEqual(whole.events);
      }),
    },
    {
      name: `${provider.name}: a stream cut short says all of the answer or fails with a ProviderError, after a prefix of the whole stream's events`,
      runs: 150,
      property: fc.asyncProperty(
        validStream(provider).chain(([answer, bytes, chunks]) =>
          fc.tuple(fc.constant(answer), fc.constant(bytes), fc.constant(chunks), fc.nat({ max: bytes.byteLength })),
        ),
        async ([answer, bytes, , end]) => {
          const whole = await readModelStream(provider.mapper(), [bytes]);
          const cut = await readModelStream(provider.mapper(), [bytes.subarray(0, end)]);
          expectClean(cut);
          if (cut.error === undefined) {
            const { usage: _usage, ...expected } = expectedSaid(answer, provider.thinkingSeparator);
            const { usage: _said, ...got } = said(cut.events);
            expect(got).toEqual(expected);
          } else {
            expect(whole.events.slice(0, cut.events.length)).toEqual(cut.events);
          }
        },
      ),
    },
    {
      name: `${provider.name}: garbage (bytes, events of known types with arbitrary fields, a valid stream with bytes changed) fails with a ProviderError or says something well formed`,
      runs: 200,
      property: fc.asyncProperty(
        fc
          .oneof(
            fc.uint8Array({ maxLength: 400 }),
            fc
              .tuple(
                fc.array(
                  fc.record({
                    event: fc.option(fc.constantFrom(...provider.types, "message", "x"), { nil: undefined }),
                    data: fc.oneof(
                      garbageJson(provider).map((v) => JSON.stringify(v) ?? "null"),
                      fc.constantFrom("[DONE]", "", "{", "null"),
                    ),
                  }),
                  { maxLength: 12 },
                ),
                layoutArbitrary,
              )
              .map(([events, layout]) => encoder.encode(sseText(events, layout))),
            validStream(provider).chain(([, bytes]) =>
              fc
                .array(fc.tuple(fc.nat({ max: Math.max(0, bytes.byteLength - 1) }), fc.integer({ min: 0, max: 255 })), {
                  minLength: 1,
                  maxLength: 4,
                })
                .map((changes) => {
                  const changed = bytes.slice();
                  for (const [at, byte] of changes) changed[at] = byte;
                  return changed;
                }),
            ),
          )
          .chain((bytes) => chunksOf(bytes, 6)),
        async (chunks) => {
          expectClean(await readModelStream(provider.mapper(), chunks));
        },
      ),
    },
  ];
}

export const providerStreamProperties: FuzzProperty[] = PROVIDERS.flatMap(providerProperties);
