// Arbitrary protobuf messages of any generated schema, walked from its descriptor:
// a few set fields per message (scalars, enums, lists, maps, oneofs), nested to a
// bounded depth. Well-known types (google.protobuf.*) are left unset: protobuf-es
// gives them JSON or unboxed shapes that a generic walk would get wrong.
import { create, ScalarType, type DescField, type DescMessage, type Message } from "@bufbuild/protobuf";
import fc from "fast-check";

/** How big one generated message may get. */
interface Size {
  /** Levels of nested messages below this one. */
  depth: number;
  /** Set fields (a oneof counts as one) per message. */
  fields: number;
  /** Elements of a list or map. */
  items: number;
}

const DEFAULT_SIZE: Size = { depth: 3, fields: 4, items: 2 };

export function messageArbitrary<T extends Message>(schema: DescMessage, size: Partial<Size> = {}): fc.Arbitrary<T> {
  return messageOf(schema, { ...DEFAULT_SIZE, ...size }) as fc.Arbitrary<T>;
}

function messageOf(schema: DescMessage, size: Size): fc.Arbitrary<Message> {
  const setters: [string, fc.Arbitrary<unknown>][] = [];
  for (const field of schema.fields) {
    if (field.oneof) continue;
    const value = fieldValue(field, size);
    if (value) setters.push([field.localName, value]);
  }
  for (const oneof of schema.oneofs) {
    const cases = oneof.fields.flatMap((field) => {
      const value = singular(field, size);
      return value ? [value.map((v) => ({ case: field.localName, value: v }))] : [];
    });
    if (cases.length > 0) setters.push([oneof.localName, fc.oneof(...cases)]);
  }
  if (setters.length === 0) return fc.constant(create(schema));
  return fc
    .shuffledSubarray(setters, { maxLength: Math.min(size.fields, setters.length) })
    .chain((chosen) => fc.tuple(...chosen.map(([name, value]) => value.map((v) => [name, v] as const))))
    .map((pairs) => create(schema, Object.fromEntries(pairs) as never));
}

function fieldValue(field: DescField, size: Size): fc.Arbitrary<unknown> | undefined {
  switch (field.fieldKind) {
    case "list": {
      const element =
        field.listKind === "scalar"
          ? scalar(field.scalar, field.longAsString)
          : field.listKind === "enum"
            ? enumValue(field.enum.values.map((v) => v.number))
            : nested(field.message, size);
      return element && fc.array(element, { maxLength: size.items });
    }
    case "map": {
      const value =
        field.mapKind === "scalar"
          ? scalar(field.scalar, false)
          : field.mapKind === "enum"
            ? enumValue(field.enum.values.map((v) => v.number))
            : nested(field.message, size);
      return value && fc.dictionary(mapKey(field.mapKey), value, { maxKeys: size.items });
    }
    default:
      return singular(field, size);
  }
}

function singular(field: DescField, size: Size): fc.Arbitrary<unknown> | undefined {
  switch (field.fieldKind) {
    case "scalar":
      return scalar(field.scalar, field.longAsString);
    case "enum":
      return enumValue(field.enum.values.map((v) => v.number));
    case "message":
      return nested(field.message, size);
    default:
      return undefined;
  }
}

function nested(schema: DescMessage, size: Size): fc.Arbitrary<Message> | undefined {
  if (size.depth <= 0 || schema.typeName.startsWith("google.protobuf.")) return undefined;
  return fc.constant(null).chain(() => messageOf(schema, { ...size, depth: size.depth - 1 }));
}

function enumValue(numbers: number[]): fc.Arbitrary<number> {
  return fc.constantFrom(...(numbers.length > 0 ? numbers : [0]));
}

const text = fc.string({ unit: "binary", maxLength: 12 });

function scalar(type: ScalarType, longAsString: boolean): fc.Arbitrary<unknown> {
  const long = (min: bigint, max: bigint) => fc.bigInt({ min, max }).map((v) => (longAsString ? v.toString() : v));
  switch (type) {
    case ScalarType.STRING:
      return text;
    case ScalarType.BYTES:
      return fc.uint8Array({ maxLength: 12 });
    case ScalarType.BOOL:
      return fc.boolean();
    case ScalarType.DOUBLE:
      return fc.double({ noNaN: true });
    case ScalarType.FLOAT:
      return fc.float({ noNaN: true });
    case ScalarType.INT32:
    case ScalarType.SINT32:
    case ScalarType.SFIXED32:
      return fc.integer();
    case ScalarType.UINT32:
    case ScalarType.FIXED32:
      return fc.integer({ min: 0, max: 0xffff_ffff });
    case ScalarType.UINT64:
    case ScalarType.FIXED64:
      return long(0n, 2n ** 64n - 1n);
    default:
      return long(-(2n ** 63n), 2n ** 63n - 1n);
  }
}

/** Map keys as protobuf-es holds them: object keys, so numbers and booleans as strings. */
function mapKey(type: ScalarType): fc.Arbitrary<string> {
  switch (type) {
    case ScalarType.STRING:
      return text;
    case ScalarType.BOOL:
      return fc.constantFrom("true", "false");
    default:
      return fc.integer({ min: 0, max: 1_000_000 }).map(String);
  }
}
