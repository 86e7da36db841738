// How the search modes (core/contract/search.ts) are offered in the mode menu: a label and a hint each.
import { SEARCH_MODES, type SearchMode } from '../../../core/contract/search.ts';

export type { SearchMode } from '../../../core/contract/search.ts';

const SHOWN: Record<SearchMode, { label: string; hint: string }> = {
  hybrid: { label: 'Hybrid', hint: 'Keywords and meaning, fused' },
  keyword: { label: 'Keyword', hint: 'Exact words (BM25)' },
  vector: { label: 'Meaning', hint: 'Similar meaning (embeddings)' },
};

export const SEARCH_MODE_OPTIONS: ReadonlyArray<{ mode: SearchMode; label: string; hint: string }> = SEARCH_MODES.map((mode) => ({ mode, ...SHOWN[mode] }));
