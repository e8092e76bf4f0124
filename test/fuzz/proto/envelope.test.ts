// Fuzzing the Connect envelope decoder and end-stream frame (docs/testing.md#fuzzing).
import { describe } from "vitest";
import { envelopeProperties } from "../properties/envelope.ts";
import { testProperties } from "../support/fuzz-property.ts";

describe("Connect envelopes under arbitrary input", () => testProperties(envelopeProperties));
