import { defineConfig } from "drizzle-kit";

export default defineConfig({
  dialect: "sqlite",
  driver: "durable-sqlite",
  schema: "./src/code-mode/store/schema.ts",
  out: "./migrations/code-mode",
});
