// The Team page (placeholder until it is built; docs/dashboard.md).
import type { PageProps } from "../types.ts";

export function TeamPage(_props: PageProps) {
  return (
    <>
      <h1>Team</h1>
      <p>This page is not built yet.</p>
    </>
  );
}
