/** Token counts here (o200k_base), not trusting the service's own figures. */
import { getEncoding } from "js-tiktoken";
import type { OpenAiTool } from "../../../functions/toolnet/openai-tools";

export const encoding = getEncoding("o200k_base");
export const tokens = (text: string): number => encoding.encode(text, [], []).length;

/** Tokens of what an answer returns, counted here. */
export const answerTokens = (answer: { prompt?: string | undefined; tools?: OpenAiTool[] | undefined }): number =>
  (answer.prompt === undefined ? 0 : tokens(answer.prompt)) + (answer.tools === undefined ? 0 : tokens(JSON.stringify(answer.tools)));
