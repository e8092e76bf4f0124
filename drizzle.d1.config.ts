import { defineConfig } from "drizzle-kit";

export default defineConfig({
  dialect: "sqlite",
  schema: "./src/store/d1/schema/*.ts",
  out: "./migrations/d1",
});
