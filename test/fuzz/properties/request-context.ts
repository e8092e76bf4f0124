// Properties of the request context sent by reference (src/cursor/context/parts.ts,
// as src/cursor/context/resolve.ts uses it): a part's blob decodes to the fields it
// carries and encodes back to the same part, layers merge field by field with the
// later winning, and garbage blobs decode or throw an Error (which resolve.ts
// reports as invalid_argument naming the blob), never anything else.
import { equals, fromBinary, isFieldSet, toBinary, type DescMessage } from "@bufbuild/protobuf";
import fc from "fast-check";
import { expect } from "vitest";
import { decodePart, encodePart, mergeContexts, type PartKind } from "../../../src/cursor/context/parts.ts";
import {
  RequestContextMcpsPartSchema,
  RequestContextRulesPartSchema,
  RequestContextSchema,
  RequestContextSkillsPartSchema,
  RequestContextSubagentsPartSchema,
  type RequestContext,
} from "../../../src/proto/gen/agent/v1/agent_pb.ts";
import type { FuzzProperty } from "../support/fuzz-property.ts";
import { messageArbitrary } from "../support/proto-arbitrary.ts";

const PARTS: [PartKind, DescMessage][] = [
  ["rules", RequestContextRulesPartSchema],
  ["skills", RequestContextSkillsPartSchema],
  ["subagents", RequestContextSubagentsPartSchema],
  ["mcps", RequestContextMcpsPartSchema],
];

const part = fc
  .constantFrom(...PARTS)
  .chain(([kind, schema]) => fc.tuple(fc.constant(kind), fc.constant(schema), messageArbitrary(schema)));
const context = messageArbitrary<RequestContext>(RequestContextSchema, { fields: 6 });

/** The value a message holds for a field, read the way protobuf-es stores it (oneof members under their oneof). */
function fieldValue(message: Record<string, unknown>, field: DescMessage["fields"][number]): unknown {
  if (!field.oneof) return message[field.localName];
  const oneof = message[field.oneof.localName] as { case?: string; value?: unknown };
  return oneof.case === field.localName ? oneof.value : undefined;
}

export const requestContextProperties: FuzzProperty[] = [
  {
    name: "a request context part's blob decodes to the fields it carries and encodes back to the same part",
    runs: 200,
    property: fc.property(part, ([kind, schema, message]) => {
      const decoded = decodePart(kind, toBinary(schema, message));
      for (const field of schema.fields) {
        const target = RequestContextSchema.fields.find((f) => f.localName === field.localName);
        if (target && isFieldSet(message as never, field)) expect(isFieldSet(decoded, target)).toBe(true);
      }
      expect(equals(schema, fromBinary(schema, encodePart(kind, decoded)), message)).toBe(true);
    }),
  },
  {
    name: "merged request contexts hold, field by field, the last layer's value of each field a layer sets",
    runs: 150,
    property: fc.property(fc.array(fc.option(context, { nil: undefined }), { maxLength: 3 }), (layers) => {
      const merged = mergeContexts(layers) as unknown as Record<string, unknown>;
      for (const field of RequestContextSchema.fields) {
        const last = layers.findLast((layer) => layer && isFieldSet(layer, field));
        if (last) expect(fieldValue(merged, field)).toEqual(fieldValue(last as unknown as Record<string, unknown>, field));
        else expect(isFieldSet(merged as never, field)).toBe(false);
      }
    }),
  },
  {
    name: "a garbage blob as any part decodes or throws an Error, never anything else",
    runs: 400,
    property: fc.property(fc.constantFrom(...PARTS), fc.uint8Array({ maxLength: 300 }), ([kind], bytes) => {
      try {
        decodePart(kind, bytes);
      } catch (error) {
        expect(error).toBeInstanceOf(Error);
      }
    }),
  },
];
