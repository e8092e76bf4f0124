// Fuzzing the decoding of BidiAppend bodies: protobuf, hex, protobuf (docs/testing.md#fuzzing).
import { describe } from "vitest";
import { appendProperties } from "../properties/append.ts";
import { testProperties } from "../support/fuzz-property.ts";

describe("BidiAppend decoding under arbitrary input", () => testProperties(appendProperties));
