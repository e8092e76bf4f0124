// Fuzzing the checkpoint's round trip through the client and its decoding on recovery (docs/testing.md#fuzzing).
import { describe } from "vitest";
import { checkpointProperties } from "../properties/checkpoint.ts";
import { testProperties } from "../support/fuzz-property.ts";

describe("checkpoints and their recovery under arbitrary input", () => testProperties(checkpointProperties));
