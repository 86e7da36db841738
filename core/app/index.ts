// The front door of core/app: what the CLI, the Electron main process, the HTTP server, tests and benchmarks use.
export { CairnService } from './cairnApp.js';
export type { ServiceOptions } from './appContext.js';
export { CairnVault } from './vault.js';
export { CairnError } from '../contract/errors.js';
export type { VaultStatus } from './vaultStatus.js';
export type { AdaptOutcome } from './tableAdaptation.js';
export type { AdaptProgress } from '../adapt/adaptStaticModel.js';
export type { IndexEvent, IndexListener, IndexPhase, IndexSummary } from '../indexing/indexEvents.js';
export type { ChunkSummary, SearchFilters, SearchMode, SearchRequest, SearchResponse, SearchResult } from '../contract/search.js';
export type { QueryOperator } from '../contract/filters.js';
export type { TagCount } from '../contract/search.js';
