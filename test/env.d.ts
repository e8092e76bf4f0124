// Bindings that exist only in the test runtime (vitest.config.ts).
declare namespace Cloudflare {
  interface Env {
    TEST_MIGRATIONS: import("cloudflare:test").D1Migration[];
    /** TOKEN_CALLS with a limit of 40 a minute (vitest.config.ts). */
    SMALL_TOKEN_CALLS: RateLimit;
    FAKE_PROVIDER_URL: string;
    FAKE_SEARCH_URL: string;
    OTLP_RECEIVER_URL: string;
  }
}

declare module "parse-prometheus-text-format" {
  const parse: (text: string) => unknown[];
  export default parse;
}
