// A model per role (docs/providers.md#roles): a model may name the model that writes its
// conversation summaries and the one its subagents run on. vitest.config.ts: fake-roles (32k
// window, upstream fake-ro) is summarized by fake-model (fake-1); its subagents run on fake-small.
import { describe, expect, it } from "vitest";
import { chatText, chatToolCalls, createScenario } from "../../support/fake-provider.ts";
import { startTurn } from "../../support/cursor-client.ts";
import { subagentSuccess } from "../../support/exec-replies.ts";
import { api, teamWithPeople } from "../../support/admin-client.ts";
import { storeCredential, storeModel } from "../../support/stored-models.ts";

/** About 15,000 tokens: two of them fill a 32k window. */
const big = (label: string, marker: string) => `${label} ${marker} ${"x".repeat(60_000)}`;
const upstreamModel = (body: string) => (JSON.parse(body) as { model: string }).model;

describe("model roles", () => {
  it("writes the conversation's summary with the model's compaction model, and answers with its own", async () => {
    const scenario = await createScenario([chatText(["noted"]), chatText(["the summary"]), chatText(["answer"])]);
    const conversationId = crypto.randomUUID();
    const one = await startTurn({ conversationId, text: big("first", scenario.marker), model: "fake-roles" });
    expect(await one.reader.end()).toEqual({});
    const two = await startTurn({ conversationId, text: big("second", scenario.marker), model: "fake-roles" });
    expect(await two.reader.end()).toEqual({});
    expect(two.reader.text()).toBe("answer");
    const requests = await scenario.requests(3);
    expect(requests.map((r) => upstreamModel(r.body))).toEqual(["fake-ro", "fake-1", "fake-ro"]);
  });

  it("runs a subagent on the model's subagent model when neither the Task nor the client picks one", async () => {
    const scenario = await createScenario([
      chatToolCalls([
        { id: "t-a", name: "Task", args: ['{"description":"a","prompt":"a","subagent_type":"explore"}'] },
        { id: "t-b", name: "Task", args: ['{"description":"b","prompt":"b","subagent_type":"review","model":"inherit"}'] },
      ]),
      chatText(["ok"]),
    ]);
    const models = new Map<string, string>();
    const { reader } = await startTurn(
      { conversationId: crypto.randomUUID(), text: `roles ${scenario.marker}`, model: "fake-roles" },
      {
        onExec: (exec, r) => {
          if (exec.message.case === "subagentArgs") models.set(exec.message.value.subagentType, exec.message.value.modelId);
          return r.send(subagentSuccess(exec, `agent-${exec.id}`, "done"));
        },
      },
    );
    expect(await reader.end()).toEqual({});
    // An explicit "inherit" keeps the parent's own model.
    expect(Object.fromEntries(models)).toEqual({ explore: "fake-small", review: "fake-roles" });
  });
});

describe("images for a text-only model", () => {
  const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52, 9, 9, 9]);
  const image = () => ({ uuid: crypto.randomUUID(), mimeType: "image/png", dataOrBlobId: { case: "data" as const, value: PNG } });

  it("gives it the image model's description in the image's place, once per image", async () => {
    const scenario = await createScenario([chatText(["a red square"]), chatText(["It is red."]), chatText(["Still red."])]);
    const conversationId = crypto.randomUUID();
    const one = await startTurn({ conversationId, text: `what is this? ${scenario.marker}`, model: "fake-text", images: [image()] });
    expect(await one.reader.end()).toEqual({});
    expect(one.reader.text()).toBe("It is red.");
    const two = await startTurn({ conversationId, text: `and now? ${scenario.marker}`, model: "fake-text" });
    expect(await two.reader.end()).toEqual({});
    const requests = await scenario.requests(3);
    // The description call to fake-model, then the text-only model twice: the image described once.
    expect(requests.map((r) => upstreamModel(r.body))).toEqual(["fake-1", "fake-t", "fake-t"]);
    expect(requests[0]!.body).toContain("image_url");
    for (const later of requests.slice(1)) {
      expect(later.body).not.toContain("image_url");
      expect(later.body).toContain("A description of an image (image/png) by fake-model");
      expect(later.body).toContain("a red square");
    }
  });
});

describe("model roles of stored models", () => {
  it("summarize with the role model the admin API names, and refuse one its users may not all use", async () => {
    const { admin, member } = await teamWithPeople();
    const credential = await storeCredential(admin.token, "team", `sk-roles-${crypto.randomUUID()}`);
    const writer = await storeModel(admin.token, { credential_id: credential.id, scope: "team", model: "fake-writer" });
    const main = await storeModel(admin.token, {
      credential_id: credential.id,
      scope: "team",
      model: "fake-main",
      context_window: 32000,
      compaction_model_id: writer.id,
      subagent_model_id: writer.id,
    });
    const scenario = await createScenario([chatText(["noted"]), chatText(["the summary"]), chatText(["answer"])]);
    const conversationId = crypto.randomUUID();
    const as = { headers: { authorization: `Bearer ${member.token}` } };
    expect(await (await startTurn({ conversationId, text: big("first", scenario.marker), model: main.name }, as)).reader.end()).toEqual({});
    expect(await (await startTurn({ conversationId, text: big("second", scenario.marker), model: main.name }, as)).reader.end()).toEqual(
      {},
    );
    expect((await scenario.requests(3)).map((r) => upstreamModel(r.body))).toEqual(["fake-main", "fake-writer", "fake-main"]);

    const own = await storeCredential(member.token, "user", `sk-own-${crypto.randomUUID()}`);
    const personal = await storeModel(member.token, { credential_id: own.id, scope: "user" });
    const refused = await api<{ error: { fields: { path: string }[] } }>("PATCH", `/api/v1/models/${main.id}`, {
      token: admin.token,
      body: { subagent_model_id: personal.id },
    });
    expect(refused.status).toBe(400);
    expect(refused.body.error.fields[0]?.path).toBe("body.subagent_model_id");
  });
});
