// A request context sent by reference (docs/request-context.md): four part
// messages, one per blob, whose fields are RequestContext fields of the same
// names. Merging lays sources over each other field by field.
import { create, fromBinary, isFieldSet, toBinary, type DescMessage } from "@bufbuild/protobuf";
import {
  RequestContextMcpsPartSchema,
  RequestContextRulesPartSchema,
  RequestContextSchema,
  RequestContextSkillsPartSchema,
  RequestContextSubagentsPartSchema,
  type RequestContext,
  type RequestContextPartReferences,
} from "../../proto/gen/agent/v1/agent_pb.ts";

export type PartKind = "rules" | "skills" | "subagents" | "mcps";

const PART_SCHEMAS: Record<PartKind, DescMessage> = {
  rules: RequestContextRulesPartSchema,
  skills: RequestContextSkillsPartSchema,
  subagents: RequestContextSubagentsPartSchema,
  mcps: RequestContextMcpsPartSchema,
};

export interface PartReference {
  kind: PartKind;
  blobId: Uint8Array;
  /** The blob's length as the client declared it; 0 when it did not say. */
  byteLength: number;
}

/** The parts a reference names, in a fixed order; an empty blob id means "no such part". */
export function partReferences(refs: RequestContextPartReferences): PartReference[] {
  const all: PartReference[] = [
    { kind: "rules", blobId: refs.rulesBlobId, byteLength: refs.rulesByteLength },
    { kind: "skills", blobId: refs.skillsBlobId, byteLength: refs.skillsByteLength },
    { kind: "subagents", blobId: refs.subagentsBlobId, byteLength: refs.subagentsByteLength },
    { kind: "mcps", blobId: refs.mcpsBlobId, byteLength: refs.mcpsByteLength },
  ];
  return all.filter((ref) => ref.blobId.byteLength > 0);
}

/** A serialized part as the RequestContext fields it carries; throws on bytes that are not that part. */
export function decodePart(kind: PartKind, bytes: Uint8Array): RequestContext {
  const schema = PART_SCHEMAS[kind];
  const part = fromBinary(schema, bytes);
  return copyFields(schema, part, RequestContextSchema, create(RequestContextSchema));
}

/** The part of a full RequestContext (from request_context_result), serialized like the client's blob. */
export function encodePart(kind: PartKind, context: RequestContext): Uint8Array {
  const schema = PART_SCHEMAS[kind];
  return toBinary(schema, copyFields(RequestContextSchema, context, schema, create(schema)));
}

/** Later layers win, field by field: a field a layer sets replaces the one below (repeated fields whole). */
export function mergeContexts(layers: readonly (RequestContext | undefined)[]): RequestContext {
  const merged = create(RequestContextSchema);
  for (const layer of layers) if (layer) copyFields(RequestContextSchema, layer, RequestContextSchema, merged);
  return merged;
}

/**
 * Copies every set field of `from` into the field of the same name of `to`. The
 * part messages and RequestContext share field names and types, which is what
 * makes the untyped copy sound.
 */
function copyFields<T>(fromSchema: DescMessage, from: object, toSchema: DescMessage, to: T): T {
  const source = from as Record<string, unknown>;
  const target = to as Record<string, unknown>;
  for (const field of fromSchema.fields) {
    if (!isFieldSet(from as never, field)) continue;
    if (!toSchema.fields.some((f) => f.localName === field.localName)) continue;
    target[field.localName] = source[field.localName];
  }
  return to;
}
