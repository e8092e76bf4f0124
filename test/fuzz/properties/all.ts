// Every fuzzed property, for the long run (scripts/fuzz.ts); test/fuzz/*.test.ts run the same lists bounded.
import type { FuzzProperty } from "../support/fuzz-property.ts";
import { appendProperties } from "./append.ts";
import { checkpointProperties } from "./checkpoint.ts";
import { envelopeProperties } from "./envelope.ts";
import { inboxProperties } from "./inbox.ts";
import { providerStreamProperties } from "./provider-streams.ts";
import { requestContextProperties } from "./request-context.ts";

export const allProperties: FuzzProperty[] = [
  ...envelopeProperties,
  ...appendProperties,
  ...inboxProperties,
  ...providerStreamProperties,
  ...requestContextProperties,
  ...checkpointProperties,
];
