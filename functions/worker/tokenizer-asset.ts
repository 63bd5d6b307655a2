import { GptEncoding } from "gpt-tokenizer/GptEncoding";
import { bpeTokenizer, type Tokenizer } from "../../src/context/tokenizer.js";

/** Where scripts/build-worker-assets.ts puts o200k_base's rank table among the static assets. */
export const TOKENIZER_ASSET_PATH = "/_tokenizer/o200k_base.json";

/** The static-assets binding (`[assets] binding = "ASSETS"`). */
export interface AssetFetcher {
  fetch(request: Request): Promise<Response>;
}

/**
 * o200k_base built from its rank table fetched from the Worker's own static assets, once per
 * isolate: bundled, the 2.4 MB table was half the Worker and parsed at every cold start.
 */
export async function loadTokenizer(assets: AssetFetcher): Promise<Tokenizer> {
  const response = await assets.fetch(new Request(`https://assets.invalid${TOKENIZER_ASSET_PATH}`));
  if (!response.ok)
    throw new Error(`the tokenizer's rank table is not among the static assets (${response.status}): run npm run build:worker`);
  const ranks: unknown = await response.json();
  // A cheap shape check: validating 200,000 entries one by one would cost more than the load itself.
  if (!Array.isArray(ranks) || ranks.length < 199_000) throw new Error("the tokenizer's rank table is not o200k_base");
  return bpeTokenizer(
    "o200k_base",
    GptEncoding.getEncodingApi("o200k_base", () => ranks as string[]),
  );
}
