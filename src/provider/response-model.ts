// The model a provider says answered a call (its response's `model`), for the call's span
// (docs/telemetry.md#traces): a snapshot such as gpt-4o-2024-08-06 where the request named gpt-4o.
// A name, never text of the conversation; bounded, since the provider is whatever the user points at.
const RESPONSE_MODEL_MAX = 200;

/** `{ responseModel }` when the provider named one, for spreading into a start event. */
export function responseModelOf(model: string | null | undefined): { responseModel: string } | Record<string, never> {
  const name = model?.trim();
  return name ? { responseModel: name.slice(0, RESPONSE_MODEL_MAX) } : {};
}
