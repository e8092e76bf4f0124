#!/usr/bin/env node
// `npm run grpc-bridge -- --upstream URL [--listen 127.0.0.1:PORT] [--token-env NAME]`
// (or the package bin `byok-grpc-bridge`): native gRPC for Codex in front of
// byok-edge, which serves Connect and gRPC-web only (docs/code-mode.md#grpc-bridge).
// Needs Node 22 (the project's; `npm run` puts it first on PATH). The generated
// protobuf code has TypeScript enums, so this re-runs itself with
// --experimental-transform-types when Node only strips types.
import { ensureTransformTypes } from "../lib/relaunch.ts";

await ensureTransformTypes(import.meta.filename);
await import("./main.ts");
