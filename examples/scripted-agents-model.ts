import type { AgentInputItem, AgentOutputItem, Model, ModelProvider, ModelRequest, ModelResponse, StreamEvent } from "@openai/agents";
import { Usage } from "@openai/agents";

/** One answer of the script: the model's output items, which may read the request it answers. */
export type ScriptStep = (request: ModelRequest) => AgentOutputItem[];

/**
 * An OpenAI Agents SDK `Model` with a script instead of weights, so the examples and tests run the
 * SDK's real `Runner` offline: each call records what the runner sent (instructions and input) and
 * answers with the next step. With a real model, give the agent a model name and drop the provider.
 *
 * @example
 * const model = new ScriptedModel().answer(() => says("Hello."));
 * const runner = new Runner({ modelProvider: model.provider(), tracingDisabled: true });
 */
export class ScriptedModel implements Model {
  readonly requests: { instructions: string; input: AgentInputItem[] }[] = [];
  private readonly steps: ScriptStep[] = [];
  private calls = 0;

  answer(step: ScriptStep): this {
    this.steps.push(step);
    return this;
  }

  provider(): ModelProvider {
    return { getModel: () => this };
  }

  async getResponse(request: ModelRequest): Promise<ModelResponse> {
    const input: AgentInputItem[] = typeof request.input === "string" ? [{ role: "user", content: request.input }] : request.input;
    this.requests.push(structuredClone({ instructions: request.systemInstructions ?? "", input }));
    const step = this.steps.shift();
    if (!step) throw new Error("the script has no step left");
    this.calls += 1;
    return { usage: new Usage(), output: step(request), responseId: `resp_${this.calls}` };
  }

  // biome-ignore lint/correctness/useYield: a scripted model never streams
  async *getStreamedResponse(): AsyncIterable<StreamEvent> {
    throw new Error("the scripted model does not stream");
  }
}

let outputs = 0;

/** The model's text answer as an output item. */
export const says = (text: string): AgentOutputItem[] => [
  { type: "message", id: `msg_${++outputs}`, role: "assistant", status: "completed", content: [{ type: "output_text", text }] },
];

/** A function call of the model as an output item. */
export const callsTool = (name: string, args: Record<string, unknown>): AgentOutputItem[] => [
  { type: "function_call", id: `fc_${++outputs}`, callId: `call_${outputs}`, name, arguments: JSON.stringify(args), status: "completed" },
];
