// A request context sent by reference: part blobs decode into RequestContext
// fields, and sources merge field by field with later ones winning.
import { create, toBinary } from "@bufbuild/protobuf";
import { describe, expect, it } from "vitest";
import {
  RequestContextMcpsPartSchema,
  RequestContextPartReferencesSchema,
  RequestContextRulesPartSchema,
  RequestContextSchema,
  RequestContextSkillsPartSchema,
  RequestContextSubagentsPartSchema,
} from "../../../src/proto/gen/agent/v1/agent_pb.ts";
import { decodePart, encodePart, mergeContexts, partReferences, type PartKind } from "../../../src/cursor/context/parts.ts";

const PART_SCHEMAS = [
  RequestContextRulesPartSchema,
  RequestContextSkillsPartSchema,
  RequestContextSubagentsPartSchema,
  RequestContextMcpsPartSchema,
];

describe("request context parts", () => {
  it("carry only fields that RequestContext has under the same name and type", () => {
    for (const schema of PART_SCHEMAS) {
      for (const field of schema.fields) {
        const target = RequestContextSchema.fields.find((f) => f.localName === field.localName);
        expect(target, `${schema.typeName}.${field.name}`).toBeDefined();
        expect(target!.fieldKind, `${schema.typeName}.${field.name}`).toBe(field.fieldKind);
        expect(target!.message?.typeName, `${schema.typeName}.${field.name}`).toBe(field.message?.typeName);
      }
    }
  });

  it("decode from the client's blob into the RequestContext fields they fill", () => {
    const rules = toBinary(
      RequestContextRulesPartSchema,
      create(RequestContextRulesPartSchema, { rules: [{ fullPath: "/r.mdc", content: "R" }], cloudRule: "cloud" }),
    );
    const decoded = decodePart("rules", rules);
    expect(decoded.rules.map((r) => r.fullPath)).toEqual(["/r.mdc"]);
    expect(decoded.cloudRule).toBe("cloud");
    const subagents = toBinary(
      RequestContextSubagentsPartSchema,
      create(RequestContextSubagentsPartSchema, { customSubagents: [{ name: "rev" }] }),
    );
    expect(decodePart("subagents", subagents).customSubagents.map((s) => s.name)).toEqual(["rev"]);
    const mcps = toBinary(
      RequestContextMcpsPartSchema,
      create(RequestContextMcpsPartSchema, { mcpInstructions: [{ serverName: "gh", instructions: "i" }] }),
    );
    expect(decodePart("mcps", mcps).mcpInstructions[0]?.serverName).toBe("gh");
  });

  it("refuse bytes that are not a part message", () => {
    expect(() => decodePart("skills", new Uint8Array([0xff, 0xff, 0xff]))).toThrow();
  });

  it("encode the part of a full context the way it decodes again", () => {
    const full = create(RequestContextSchema, {
      agentSkills: [{ fullPath: "/s/SKILL.md", description: "d" }],
      rules: [{ fullPath: "/r.mdc" }],
      env: { shell: "zsh" },
    });
    for (const kind of ["rules", "skills", "subagents", "mcps"] satisfies PartKind[]) {
      const again = decodePart(kind, encodePart(kind, full));
      expect(again.env).toBeUndefined();
      if (kind === "skills") expect(again.agentSkills).toEqual(full.agentSkills);
      if (kind === "rules") expect(again.rules).toEqual(full.rules);
    }
  });

  it("name only the parts whose blob id is set, in a fixed order", () => {
    const refs = create(RequestContextPartReferencesSchema, {
      mcpsBlobId: new Uint8Array([3]),
      mcpsByteLength: 9,
      rulesBlobId: new Uint8Array([1]),
      rulesByteLength: 4,
    });
    expect(partReferences(refs).map((r) => [r.kind, r.byteLength])).toEqual([
      ["rules", 4],
      ["mcps", 9],
    ]);
  });

  it("merge field by field: a later source replaces what it sets, whole, and leaves the rest", () => {
    const inline = create(RequestContextSchema, { rules: [{ fullPath: "/old.mdc" }], env: { shell: "bash" }, webFetchEnabled: true });
    const dynamic = create(RequestContextSchema, { env: { shell: "zsh" }, webFetchEnabled: false });
    const rules = create(RequestContextSchema, { rules: [{ fullPath: "/a.mdc" }, { fullPath: "/b.mdc" }] });
    const merged = mergeContexts([inline, undefined, dynamic, rules]);
    expect(merged.rules.map((r) => r.fullPath)).toEqual(["/a.mdc", "/b.mdc"]);
    expect(merged.env?.shell).toBe("zsh");
    expect(merged.webFetchEnabled).toBe(false);
    expect(mergeContexts([inline, create(RequestContextSchema)]).rules.map((r) => r.fullPath)).toEqual(["/old.mdc"]);
  });
});
