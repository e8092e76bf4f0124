// Where a call goes and how it carries the key: the wire API's path joined to the base URL
// (before its query string, which Azure OpenAI's api-version lives in), and the key in the
// header the service reads: Authorization for OpenAI and compatible servers, api-key for
// Azure OpenAI (docs/providers.md#azure-openai), and none for a model without a key.

/** `path` under `baseUrl`: "https://h/v1" + "/chat/completions"; a query string of the base URL stays last. */
export function endpointUrl(baseUrl: string, path: string): string {
  const q = baseUrl.indexOf("?");
  const root = q < 0 ? baseUrl : baseUrl.slice(0, q);
  const query = q < 0 ? "" : baseUrl.slice(q);
  return `${root.replace(/\/+$/, "")}${path}${query}`;
}

/** Azure's own hosts of OpenAI models: Azure OpenAI, and AI Services / Foundry resources. */
const AZURE_HOSTS = /(^|\.)(openai\.azure\.com|cognitiveservices\.azure\.com|services\.ai\.azure\.com)$/i;

/**
 * An Azure OpenAI endpoint: one of Azure's hosts, or a deployment URL
 * (`…/openai/deployments/<name>`) on any host (an API gateway in front of Azure, or a stand-in).
 * Such an endpoint takes the key as `api-key`; a Bearer token there must be an Entra ID token.
 */
export function isAzureOpenAi(baseUrl: string): boolean {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    return false;
  }
  return AZURE_HOSTS.test(url.hostname) || /\/openai\/deployments\/[^/]+/.test(url.pathname);
}

/**
 * The OpenAI APIs' key header: `api-key` on Azure OpenAI, else `Authorization: Bearer`; none for a
 * model without a key (a local server that checks none, docs/providers.md#servers-without-a-key).
 */
export function openAiKeyHeaders(baseUrl: string, apiKey: string): Record<string, string> {
  if (apiKey === "") return {};
  return isAzureOpenAi(baseUrl) ? { "api-key": apiKey } : { authorization: `Bearer ${apiKey}` };
}
