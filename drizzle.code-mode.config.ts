import { defineConfig } from "drizzle-kit";

export default defineConfig({
  dialect: "sqlite",
  driver: "durable-sqlite",
  schema: "./src/store/code-mode/schema.ts",
  out: "./migrations/code-mode",
});
