export type SearchMode = 'hybrid' | 'keyword' | 'vector';

export const SEARCH_MODES: ReadonlyArray<{ mode: SearchMode; label: string; hint: string }> = [
  { mode: 'hybrid', label: 'Hybrid', hint: 'Keywords and meaning, fused' },
  { mode: 'keyword', label: 'Keyword', hint: 'Exact words (BM25)' },
  { mode: 'vector', label: 'Meaning', hint: 'Similar meaning (embeddings)' },
];
