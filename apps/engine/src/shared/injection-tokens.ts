// Injection tokens of the engine's ports and configuration.

/** The `EventStore` the engine writes sessions to. */
export const EVENT_STORE = Symbol('EVENT_STORE');
/** The validated `EngineSettings`. */
export const ENGINE_SETTINGS = Symbol('ENGINE_SETTINGS');
/** The `Clock`. */
export const CLOCK = Symbol('CLOCK');
/** The `PreparedTokenCounter` of estimates (@strata/tokenizer): a TokenCounter that also counts ahead. */
export const TOKEN_COUNTER = Symbol('TOKEN_COUNTER');
/** The summary and context templates (`EngineTemplates`). */
export const ENGINE_TEMPLATES = Symbol('ENGINE_TEMPLATES');
/** The ordered summariser candidates (`readonly Summarizer[]`). */
export const SUMMARIZER_CANDIDATES = Symbol('SUMMARIZER_CANDIDATES');
/** This engine's `EngineIdentity` among the engines of one store. */
export const ENGINE_IDENTITY = Symbol('ENGINE_IDENTITY');
