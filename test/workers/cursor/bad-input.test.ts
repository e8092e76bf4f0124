// Every bad input gets a clear Connect error with the right code, nothing leaks
// the key, and the next normal turn on the same service still works.
import { describe, expect, it } from "vitest";
import { exports } from "cloudflare:workers";
import { fromBinary } from "@bufbuild/protobuf";
import { base64Decode } from "@bufbuild/protobuf/wire";
import { ErrorDetailsSchema, ErrorDetails_Error } from "../../../src/proto/gen/aiserver/v1/aiserver_pb.ts";
import { chatText, createScenario, httpError } from "../../support/fake-provider.ts";
import { BASE, bidiAppend, heartbeat, runSse, startTurn } from "../../support/cursor-client.ts";

const KEY = "sk-test-never-logged-0123456789";

async function errorBody(res: Response) {
  return (await res.json()) as { code: string; message: string };
}

async function expectNextTurnWorks() {
  const scenario = await createScenario([chatText(["still ", "here"])]);
  const { reader } = await startTurn({ conversationId: crypto.randomUUID(), text: `next ${scenario.marker}` });
  expect(await reader.end()).toEqual({});
  expect(reader.text()).toBe("still here");
}

function decodeDetails(value: string) {
  return fromBinary(ErrorDetailsSchema, base64Decode(value));
}

describe("bad input", () => {
  it("refuses BidiAppend data that is not hex with invalid_argument", async () => {
    const res = await bidiAppend(crypto.randomUUID(), 0, null, { data: "zz-not-hex" });
    expect(res.status).toBe(400);
    expect(await errorBody(res)).toMatchObject({ code: "invalid_argument", message: "BidiAppend data is not hex" });
    await expectNextTurnWorks();
  });

  it("refuses hex that is not an AgentClientMessage with invalid_argument", async () => {
    const res = await bidiAppend(crypto.randomUUID(), 0, null, { data: "ffffffff" });
    expect(res.status).toBe(400);
    expect((await errorBody(res)).code).toBe("invalid_argument");
    await expectNextTurnWorks();
  });

  it("refuses a BidiAppend body that is not a BidiAppendRequest", async () => {
    const res = await exports.default.fetch(`${BASE}/aiserver.v1.BidiService/BidiAppend`, {
      method: "POST",
      headers: { authorization: "Bearer test-token", "content-type": "application/proto" },
      body: new Uint8Array([0xff, 0xff, 0xff]),
    });
    expect(res.status).toBe(400);
    expect((await errorBody(res)).code).toBe("invalid_argument");
  });

  it("ends the stream of a run that names an unknown model with not_found, listing the configured models", async () => {
    const { reader } = await startTurn({ conversationId: crypto.randomUUID(), text: "hi", model: "no-such-model" });
    const end = await reader.end();
    expect(end.error?.code).toBe("not_found");
    expect(end.error?.message).toContain('"no-such-model"');
    expect(end.error?.message).toContain("fake-model");
    await expectNextTurnWorks();
  });

  it("reports a provider 401 as unavailable with provider-error details and no key", async () => {
    const scenario = await createScenario([httpError(401, `Incorrect API key provided: ${KEY}`)]);
    const { reader } = await startTurn({ conversationId: crypto.randomUUID(), text: `auth ${scenario.marker}` });
    const end = await reader.end();
    expect(end.error?.code).toBe("unavailable");
    expect(JSON.stringify(end)).not.toContain(KEY);
    expect(JSON.stringify(end)).not.toContain(scenario.marker);
    const detail = end.error?.details?.[0];
    expect(detail?.type).toBe("aiserver.v1.ErrorDetails");
    const details = decodeDetails(detail!.value);
    expect(details.error).toBe(ErrorDetails_Error.PROVIDER_ERROR);
    expect(details.details?.title).toBe("Provider Error");
    expect(details.details?.detail).toContain("401");
    expect(details.isExpected).toBe(true);
    expect(reader.updates().map((u) => u.case)).not.toContain("turnEnded");
    await expectNextTurnWorks();
  });

  it("withholds a provider error message that quotes the prompt", async () => {
    const secretPrompt = "the launch code for the rocket is tangerine seven";
    const scenario = await createScenario([httpError(400, `Invalid 'content': '${secretPrompt}' is not allowed`)]);
    const { reader } = await startTurn({ conversationId: crypto.randomUUID(), text: `${secretPrompt} ${scenario.marker}` });
    const end = await reader.end();
    expect(end.error?.code).toBe("unavailable");
    expect(JSON.stringify(end)).not.toContain("tangerine");
    expect(decodeDetails(end.error!.details![0]!.value).details?.detail).not.toContain("tangerine");
    expect(end.error?.message).toContain("HTTP 400");
  });

  it("reports a provider 500 as a retryable unavailable error", async () => {
    const scenario = await createScenario([httpError(500, "upstream exploded")]);
    const { reader } = await startTurn({ conversationId: crypto.randomUUID(), text: `boom ${scenario.marker}` });
    const end = await reader.end();
    expect(end.error?.code).toBe("unavailable");
    expect(decodeDetails(end.error!.details![0]!.value).details?.isRetryable).toBe(true);
    await expectNextTurnWorks();
  });

  it("answers a request without a bearer token with 401 unauthenticated", async () => {
    const res = await runSse(crypto.randomUUID(), { token: null });
    expect(res.status).toBe(401);
    expect((await errorBody(res)).code).toBe("unauthenticated");
    const append = await bidiAppend(crypto.randomUUID(), 0, heartbeat(), { token: null });
    expect(append.status).toBe(401);
    await append.arrayBuffer();
  });

  it("answers a wrong bearer token with 401 unauthenticated, also on catalogue calls", async () => {
    const res = await bidiAppend(crypto.randomUUID(), 0, heartbeat(), { token: "wrong" });
    expect(res.status).toBe(401);
    expect((await errorBody(res)).code).toBe("unauthenticated");
    const models = await exports.default.fetch(`${BASE}/aiserver.v1.AiService/AvailableModels`, {
      method: "POST",
      headers: { authorization: "Bearer wrong", "content-type": "application/proto" },
    });
    expect(models.status).toBe(401);
    await models.arrayBuffer();
    await expectNextTurnWorks();
  });

  it("rejects a subagent request that carries only one of the two parent headers", async () => {
    const res = await bidiAppend(crypto.randomUUID(), 0, heartbeat(), { headers: { "x-parent-request-id": "p" } });
    expect(res.status).toBe(400);
    expect((await errorBody(res)).message).toContain("x-parent-agent-tool-call-id");
  });

  it("answers a path it does not serve with unimplemented", async () => {
    const res = await exports.default.fetch(`${BASE}/aiserver.v1.RepositoryService/FastRepoSync`, {
      method: "POST",
      headers: { authorization: "Bearer test-token", "content-type": "application/proto" },
    });
    expect(res.status).toBe(501);
    expect((await errorBody(res)).code).toBe("unimplemented");
  });

  it("answers a RunSSE body that is not a BidiRequestId with invalid_argument", async () => {
    const res = await exports.default.fetch(`${BASE}/agent.v1.AgentService/RunSSE`, {
      method: "POST",
      headers: { authorization: "Bearer test-token", "content-type": "application/connect+proto" },
      body: new Uint8Array([0, 0, 0, 0, 9, 1, 2]),
    });
    expect(res.status).toBe(400);
    expect((await errorBody(res)).code).toBe("invalid_argument");
  });
});
