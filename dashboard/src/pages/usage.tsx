// The Usage page (placeholder until it is built; docs/dashboard.md).
import type { PageProps } from "../types.ts";

export function UsagePage(_props: PageProps) {
  return (
    <>
      <h1>Usage</h1>
      <p>This page is not built yet.</p>
    </>
  );
}
