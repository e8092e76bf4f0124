import { defineConfig } from "drizzle-kit";

export default defineConfig({
  dialect: "sqlite",
  schema: "./src/hosting/store/schema/*.ts",
  out: "./migrations/d1",
});
