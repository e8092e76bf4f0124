// An MCP tool's input schema made into function parameters every provider takes.
import { describe, expect, it } from "vitest";
import { toolParameters } from "../../../src/cursor/tools/mcp-schema.ts";

describe("toolParameters", () => {
  it("keeps an ordinary object schema as it is", () => {
    const schema = {
      type: "object",
      properties: { q: { type: "string", description: "query" }, limit: { type: "integer", minimum: 1 } },
      required: ["q"],
      additionalProperties: false,
    };
    expect(toolParameters(structuredClone(schema))).toEqual(schema);
  });

  it("gives a tool without a usable schema an open object schema", () => {
    for (const schema of [undefined, null, "text", 3, [], { type: "string" }, { type: "array", items: {} }]) {
      expect(toolParameters(schema), JSON.stringify(schema)).toEqual({ type: "object", properties: {} });
    }
  });

  it("makes a root without a type, or with a nullable object type, an object with properties", () => {
    expect(toolParameters({})).toEqual({ type: "object", properties: {} });
    expect(toolParameters({ properties: { a: { type: "string" } } })).toEqual({ type: "object", properties: { a: { type: "string" } } });
    expect(toolParameters({ type: ["object", "null"], properties: {} })).toEqual({ type: "object", properties: {} });
  });

  it("drops the keywords about the schema document, at every depth, but not properties of those names", () => {
    const out = toolParameters({
      $schema: "http://json-schema.org/draft-07/schema#",
      $id: "urn:tool",
      $comment: "generated",
      type: "object",
      properties: {
        $id: { type: "string", $comment: "a property called $id" },
        nested: { type: "object", $schema: "x", properties: { deep: { type: "number", $id: "y" } } },
      },
    });
    expect(out).toEqual({
      type: "object",
      properties: {
        $id: { type: "string" },
        nested: { type: "object", properties: { deep: { type: "number" } } },
      },
    });
  });

  it("gives every array schema items, wherever it sits, and leaves data keywords alone", () => {
    const out = toolParameters({
      type: "object",
      properties: {
        tags: { type: "array" },
        maybe: { type: ["array", "null"] },
        tuple: { type: "array", prefixItems: [{ type: "string" }] },
        nested: { type: "object", additionalProperties: { type: "array" } },
        either: { anyOf: [{ type: "array" }, { type: "string" }] },
        withDefault: { type: "object", default: { type: "array" } },
      },
      $defs: { list: { type: "array" } },
    });
    expect(out.properties).toEqual({
      tags: { type: "array", items: {} },
      maybe: { type: ["array", "null"], items: {} },
      tuple: { type: "array", prefixItems: [{ type: "string" }] },
      nested: { type: "object", additionalProperties: { type: "array", items: {} } },
      either: { anyOf: [{ type: "array", items: {} }, { type: "string" }] },
      withDefault: { type: "object", default: { type: "array" } },
    });
    expect(out.$defs).toEqual({ list: { type: "array", items: {} } });
  });

  it("merges root allOf parts into one object: every property, every requirement", () => {
    const out = toolParameters({
      allOf: [
        { type: "object", properties: { a: { type: "string" } }, required: ["a"] },
        { type: "object", properties: { b: { type: "number" } }, required: ["b"] },
      ],
    });
    expect(out).toEqual({ type: "object", properties: { a: { type: "string" }, b: { type: "number" } }, required: ["a", "b"] });
  });

  it("merges root anyOf and oneOf alternatives: any of their properties, only what all require", () => {
    const out = toolParameters({
      type: "object",
      properties: { id: { type: "string" } },
      required: ["id"],
      oneOf: [
        { properties: { path: { type: "string" }, mode: { type: "string" } }, required: ["path", "mode"] },
        { properties: { url: { type: "string" }, mode: { type: "string" } }, required: ["url", "mode"] },
      ],
    });
    expect(out).toEqual({
      type: "object",
      properties: { id: { type: "string" }, path: { type: "string" }, mode: { type: "string" }, url: { type: "string" } },
      required: ["id", "mode"],
    });
  });

  it("drops root enum, const and not, which no provider takes for an arguments object", () => {
    expect(toolParameters({ type: "object", properties: {}, enum: [{}], const: {}, not: { required: ["x"] } })).toEqual({
      type: "object",
      properties: {},
    });
  });

  it("keeps only string names in required, once each", () => {
    expect(toolParameters({ type: "object", properties: { a: {} }, required: ["a", 3, "a", null] })).toEqual({
      type: "object",
      properties: { a: {} },
      required: ["a"],
    });
  });

  it("keeps a property named __proto__ as a plain property", () => {
    const out = toolParameters(JSON.parse('{"type":"object","properties":{"__proto__":{"type":"string"}}}'));
    expect(Object.keys(out.properties as object)).toEqual(["__proto__"]);
    expect(Object.getPrototypeOf(out.properties)).toBe(Object.prototype);
  });

  it("stops walking a hostile, very deep schema and accepts anything below the bound", () => {
    let deep: Record<string, unknown> = { type: "array" };
    for (let i = 0; i < 100; i++) deep = { type: "object", properties: { next: deep } };
    const out = toolParameters(deep);
    let node = out as Record<string, unknown>;
    let depth = 0;
    while (node.properties) {
      node = (node.properties as Record<string, Record<string, unknown>>).next!;
      depth++;
    }
    expect(depth).toBeLessThan(40);
    expect(node).toEqual({});
  });

  it("is deterministic: the same schema always gives the same bytes", () => {
    const schema = { $schema: "x", type: "object", properties: { b: { type: "array" }, a: { type: "string" } }, required: ["b"] };
    expect(JSON.stringify(toolParameters(structuredClone(schema)))).toBe(JSON.stringify(toolParameters(structuredClone(schema))));
    expect(JSON.stringify(toolParameters(schema))).toBe(
      '{"type":"object","properties":{"b":{"type":"array","items":{}},"a":{"type":"string"}},"required":["b"]}',
    );
  });
});
