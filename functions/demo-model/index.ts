/**
 * The demo model: a scripted, clearly labelled stand-in for a language model, served by
 * `npm start -- --demo-model` so runs, the evaluator and Play2Prompt can be tried with no model
 * service. Never used unless asked for. Pure: no platform imports.
 */
export { DEMO_MODEL_NAME, handleDemoModelRequest } from "./openai-wire";
export { answerChat, type ChatTurn } from "./chat-answer";
export { DEMO_NOTE, writeProgram } from "./program-writer";
export { readTypedApi, type ShownTool } from "./typed-api";
