// The Models page's form as data (dashboard/src/pages/model-draft.ts): what a new,
// edited or duplicated model's fields start as, and the body they send.
import { describe, expect, it } from "vitest";
import { bodyOf, draftOf, withCatalogueFill, withShownKeys } from "../../../dashboard/src/pages/model-draft.ts";
import type { Credential, Model } from "../../../dashboard/src/types.ts";

const credential: Credential = {
  id: "cred-team",
  name: "Team key",
  provider: "openai-chat",
  base_url: "https://api.example.com/v1",
  scope: "team",
  header_names: [],
  key_last_four: "abcd",
  has_key: true,
  sealed_to_owner: false,
  status: "ok",
  broken_at: null,
  broken_reason: null,
  team_id: "team-1",
  owner_user_id: null,
  created_at: "2026-03-01T00:00:00Z",
  updated_at: "2026-03-01T00:00:00Z",
};

const teamModel: Model = {
  id: "model-1",
  name: "gpt-team",
  scope: "team",
  credential_id: "cred-team",
  model: "gpt-5",
  context_window: 200_000,
  max_output_tokens: null,
  reasoning_effort: "medium",
  header_names: ["x-extra", "x-secret"],
  extra_body: null,
  fast_service_tier: null,
  stall_timeout_ms: null,
  fallbacks: [],
  keys: [],
  compaction_model_id: null,
  subagent_model_id: null,
  image_model_id: null,
  vision: true,
  code_mode: false,
  enabled: true,
  price_input_per_mtok: 1.25,
  price_output_per_mtok: 10,
  price_cache_read_per_mtok: null,
  price_cache_write_per_mtok: null,
  team_id: "team-1",
  owner_user_id: null,
  created_at: "2026-03-01T00:00:00Z",
  updated_at: "2026-03-01T00:00:00Z",
};

const sent = (built: ReturnType<typeof bodyOf>) => {
  if ("problems" in built) throw new Error(JSON.stringify(built.problems));
  return built.body;
};

describe("the model form's draft", () => {
  it("sends the fallbacks in the order chosen, and clears them in an edit that has none", () => {
    const draft = draftOf({ kind: "edit", model: { ...teamModel, fallbacks: ["model-2"] } }, [credential], true);
    expect(draft.fallbacks).toEqual(["model-2"]);
    expect(sent(bodyOf({ ...draft, fallbacks: ["model-3", "model-2"] }, true)).fallbacks).toEqual(["model-3", "model-2"]);
    expect(sent(bodyOf({ ...draft, fallbacks: [] }, true)).fallbacks).toBeNull();
    expect("fallbacks" in sent(bodyOf({ ...draftOf({ kind: "add" }, [credential], true), name: "n", model: "m" }, false))).toBe(false);
  });

  it("sends the keys ticked with their weights, its own credential's only when not 1, and clears them in an edit with none", () => {
    const stored = {
      ...teamModel,
      keys: [
        { credential_id: "cred-team", weight: 3 },
        { credential_id: "cred-2", weight: 2 },
      ],
    };
    const draft = draftOf({ kind: "edit", model: stored }, [credential], true);
    expect(draft.keys).toEqual([{ credential_id: "cred-2", weight: "2" }]);
    expect(draft.own_weight).toBe("3");
    expect(sent(bodyOf(draft, true)).keys).toEqual([
      { credential_id: "cred-team", weight: 3 },
      { credential_id: "cred-2", weight: 2 },
    ]);
    expect(sent(bodyOf({ ...draft, own_weight: "1" }, true)).keys).toEqual([{ credential_id: "cred-2", weight: 2 }]);
    expect(sent(bodyOf({ ...draft, keys: [] }, true)).keys).toBeNull();
    expect(sent(bodyOf({ ...draft, keys: [] }, false))).not.toHaveProperty("keys");
  });

  it("sends only the keys the form shows: one deleted since or of another provider kind is dropped", () => {
    const second = { ...credential, id: "cred-2" };
    const other = { ...credential, id: "cred-3", provider: "anthropic" as const };
    const stored = { ...teamModel, keys: [2, 3, 4].map((n) => ({ credential_id: `cred-${n}`, weight: 1 })) };
    const draft = draftOf({ kind: "edit", model: stored }, [credential, second, other], true);
    expect(withShownKeys(draft, [credential, second, other]).keys).toEqual([{ credential_id: "cred-2", weight: "1" }]);
  });

  it("a member who duplicates a team model gets a personal copy, the one scope they may add", () => {
    const draft = draftOf({ kind: "duplicate", model: teamModel }, [credential], false);
    expect(draft).toMatchObject({ name: "gpt-team-copy", scope: "user", credential_id: "cred-team", model: "gpt-5" });
    // Header values are never shown, so a duplicate asks for them again under the same names.
    expect(draft.headers).toEqual([
      { name: "x-extra", value: "" },
      { name: "x-secret", value: "" },
    ]);
    const filled = { ...draft, headers: [{ name: "x-extra", value: "2" }, ...draft.headers.slice(1)] };
    expect(sent(bodyOf(filled, false))).toMatchObject({
      scope: "user",
      name: "gpt-team-copy",
      headers: { "x-extra": "2", "x-secret": "" },
    });
  });

  it("an edit shows stored headers by name only and sends only what changed: a replaced value, a removed name, a new header", () => {
    const edit = draftOf({ kind: "edit", model: teamModel }, [credential], true);
    expect(edit.headers).toEqual([
      { name: "x-extra", value: "", stored: true },
      { name: "x-secret", value: "", stored: true },
    ]);
    expect(sent(bodyOf(edit, true))).not.toHaveProperty("headers");
    const changed = {
      ...edit,
      headers: [
        { name: "x-extra", value: "new", stored: true },
        { name: "x-added", value: "a" },
      ],
    };
    expect(sent(bodyOf(changed, true)).headers).toEqual({ "x-secret": null, "x-extra": "new", "x-added": "a" });
  });

  it("an admin who duplicates a team model keeps it a team model", () => {
    expect(draftOf({ kind: "duplicate", model: teamModel }, [credential], true).scope).toBe("team");
  });

  it("a new model starts personal on the first credential; an edit shows the model's own scope and sends none", () => {
    expect(draftOf({ kind: "add" }, [credential], true)).toMatchObject({ scope: "user", credential_id: "cred-team", name: "" });
    const edit = draftOf({ kind: "edit", model: teamModel }, [credential], false);
    expect(edit.scope).toBe("team");
    expect(sent(bodyOf(edit, true))).not.toHaveProperty("scope");
  });
});

describe("a draft filled in from the catalogue", () => {
  const added = () => draftOf({ kind: "add" }, [credential], false);

  it("takes the catalogue's figures and leaves what it does not know as it was", () => {
    const draft = { ...added(), name: "mine", stall_timeout_ms: "600000", price_input_per_mtok: "9" };
    const filled = withCatalogueFill(draft, { fields: { context_window: "1000000", price_input_per_mtok: "2" }, vision: false });
    expect(filled).toMatchObject({
      name: "mine",
      stall_timeout_ms: "600000",
      context_window: "1000000",
      price_input_per_mtok: "2",
      vision: false,
    });
    // A figure the user changes afterwards is what is sent.
    expect(sent(bodyOf({ ...filled, price_input_per_mtok: "1.5" }, false))).toMatchObject({
      context_window: 1000000,
      price_input_per_mtok: 1.5,
    });
  });

  it("keeps Takes images when the catalogue does not say", () => {
    expect(withCatalogueFill(added(), { fields: {} }).vision).toBe(true);
  });

  it("turns reasoning on at medium unless the user chose an effort, and off for a model that does not reason", () => {
    expect(withCatalogueFill(added(), { fields: {}, reasoningEffort: "medium" }).reasoning_effort).toBe("medium");
    expect(withCatalogueFill({ ...added(), reasoning_effort: "high" }, { fields: {}, reasoningEffort: "medium" }).reasoning_effort).toBe(
      "high",
    );
    expect(withCatalogueFill({ ...added(), reasoning_effort: "high" }, { fields: {}, reasoningEffort: "" }).reasoning_effort).toBe("");
    expect(withCatalogueFill({ ...added(), reasoning_effort: "low" }, { fields: {} }).reasoning_effort).toBe("low");
  });
});
