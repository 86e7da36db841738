// The front door of core/app: what the CLI, the Electron processes, tests and benchmarks use (with core/contract).
export { CairnService } from './cairnApp.js';
export type { ServiceOptions } from './appContext.js';
export { CairnVault } from './vault.js';
export { CairnError } from '../contract/errors.js';
export type { AdaptOutcome } from './tableAdaptation.js';
export type { AdaptProgress, IndexEvent, IndexListener, IndexPhase, IndexSummary, VaultStatus } from '../contract/status.js';
export type { ChunkSummary, SearchFilters, SearchMode, SearchRequest, SearchResponse, SearchResult } from '../contract/search.js';
export type { QueryOperator } from '../contract/filters.js';
export type { TagCount } from '../contract/search.js';
export type { CairnConfig } from '../config/schema.js';
export { loadCommandConfig, configErrorLines, type ConfigOverrides } from './commandConfig.js';
export { ConfigError } from '../config/loadConfig.js';
export { configProblemLines } from '../config/checkConfigText.js';
export { startApp, type StartedApp } from './startApp.js';
export { serveApp, type ServeOptions, type ServingApp } from './serve.js';
export { chunkFiles, type ChunkedFile } from './chunkFiles.js';
export type { Chunk } from '../chunking/types.js';
export { answerQuestion } from '../answer/index.js';
export { copyWithSeededMtimes, evaluateAnswerQuality, evaluateRetrieval, readQuestions, type AnswerEvalQuestion, type AnswerMetrics, type EvalQuestion, type RetrievalMetrics } from './evaluate.js';
export { noteFileToOpen } from './noteFileToOpen.js';
// What the desktop shell shares with the HTTP server on the Node side: the call gate bound to this machine, the
// built UI's files and the headers they are served with.
export { validateApiCall } from '../server/hostValidation.js';
export { readStaticFile } from '../server/staticFiles.js';
export { SECURITY_HEADERS } from '../server/securityHeaders.js';
