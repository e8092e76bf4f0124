// Fuzzing the request context's parts: decoding, encoding, merging (docs/testing.md#fuzzing).
import { describe } from "vitest";
import { requestContextProperties } from "../properties/request-context.ts";
import { testProperties } from "../support/fuzz-property.ts";

describe("request context parts under arbitrary input", () => testProperties(requestContextProperties));
