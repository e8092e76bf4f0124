import { defineConfig } from "drizzle-kit";

export default defineConfig({
  dialect: "sqlite",
  driver: "durable-sqlite",
  schema: "./src/cursor/store/schema.ts",
  out: "./migrations/do",
});
