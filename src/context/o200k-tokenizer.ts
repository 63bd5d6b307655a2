import o200k from "gpt-tokenizer/encoding/o200k_base";
import { bpeTokenizer } from "./tokenizer.js";

/**
 * o200k_base with its rank table bundled (2.4 MB of JavaScript): Node and tests. A Worker loads
 * the same table from its static assets on first use instead (functions/worker/tokenizer-asset.ts).
 */
export const o200kTokenizer = bpeTokenizer("o200k_base", o200k);
