// Bindings that exist only in the test runtime (vitest.config.ts).
declare namespace Cloudflare {
  interface Env {
    TEST_MIGRATIONS: import("cloudflare:test").D1Migration[];
    FAKE_PROVIDER_URL: string;
    FAKE_SEARCH_URL: string;
  }
}
