// @pydantic/genai-prices, one module, so that the catalogue's dynamic import() brings it in a
// lazy chunk named after it (about 480 KB, 78 KB gzipped: every provider's prices), loaded the
// first time the model form fills from the catalogue (docs/dashboard.md#stack-and-size).
export { calcPrice, findProvider } from "@pydantic/genai-prices";
