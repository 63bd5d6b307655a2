import type { ChatCompletionCreateParamsNonStreaming } from "openai/resources/chat/completions";
import { extractionJsonSchema, parseExtraction } from "../extraction-output.js";
import { extractionPrompt, llmExtractor, summaryPrompt } from "../prompts.js";
import { type LanguageModel, ProviderError } from "../types.js";
import { type OpenAICompatibleOptions, openAIClient, openAIModelId } from "./openai-client.js";
import { toProviderError } from "./openai-errors.js";

export interface OpenAILanguageModelOptions extends OpenAICompatibleOptions {
  /**
   * How extraction output is constrained: `json_schema` (OpenAI, Ollama ≥ 0.5, vLLM, llama.cpp
   * server), `json_object` (JSON mode), or `text` (the prompt alone, for servers with neither).
   */
  responseFormat?: "json_schema" | "json_object" | "text";
}

const RESPONSE_FORMATS = {
  json_schema: () => ({
    type: "json_schema" as const,
    json_schema: { name: "extraction", schema: extractionJsonSchema(), strict: true },
  }),
  json_object: () => ({ type: "json_object" as const }),
  text: () => undefined,
};

/**
 * Any OpenAI-compatible chat-completions server (OpenAI, Ollama, vLLM, llama.cpp, LM Studio):
 * the same prompts as Gemini, extraction constrained by the JSON schema of ModelExtractionSchema.
 */
export function createOpenAILanguageModel(options: OpenAILanguageModelOptions): LanguageModel {
  const client = openAIClient(options);
  const complete = async (operation: string, prompt: string, extra: Partial<ChatCompletionCreateParamsNonStreaming>): Promise<string> => {
    let content: string | null | undefined;
    let finish: string | undefined;
    try {
      const completion = await client.chat.completions.create({
        model: options.model,
        messages: [{ role: "user", content: prompt }],
        ...extra,
      });
      content = completion.choices[0]?.message.content;
      finish = completion.choices[0]?.finish_reason;
    } catch (error) {
      throw toProviderError(error, operation);
    }
    if (!content?.trim()) throw new ProviderError(`OpenAI-compatible ${operation} returned no text (${finish ?? "no choices"})`, true);
    return content;
  };
  const id = openAIModelId(options);
  const extractor = llmExtractor(options.baseUrl ? "openai-compatible" : "openai", id.slice(id.indexOf(":") + 1));
  return {
    id,
    async summarize(request) {
      return { text: (await complete("summarize", summaryPrompt(request), { temperature: 0.2 })).trim() };
    },
    async extract(request) {
      const format = RESPONSE_FORMATS[options.responseFormat ?? "json_schema"]();
      const text = await complete("extract", extractionPrompt(request), { temperature: 0, ...(format ? { response_format: format } : {}) });
      return parseExtraction(text, new Set(request.turns.map((turn) => turn.seq)), extractor);
    },
  };
}
