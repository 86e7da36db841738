// Search as you type: waits 150 ms after the last keystroke, and drops any answer that arrives after a newer
// query was sent (a slow vector search must not overwrite the results of what the user typed since). Results come
// a page at a time: `loadMore()` appends the next page, so nothing is silently capped.
import { useCallback, useEffect, useRef, useState } from 'react';
import type { SearchResponse } from '../../../core/contract/appApi.ts';
import type { SearchMode } from '../search/searchMode.ts';
import { useApi } from '../api/ApiContext.tsx';

const DEBOUNCE_MS = 150;

export interface SearchState {
  /** The first page's response, its results grown by every page loaded since (and `more` as of the last). */
  response: SearchResponse | null;
  loading: boolean;
  /** The next page is on its way. */
  loadingMore: boolean;
  error: string | null;
}

export interface Search extends SearchState {
  /** Appends the next page of results (when `response.more`). */
  loadMore(): void;
}

/** `revision` re-runs the current query (the index changed). */
export function useSearch(query: string, mode: SearchMode, revision: number, enabled: boolean): Search {
  const { api } = useApi();
  const [state, setState] = useState<SearchState>({ response: null, loading: false, loadingMore: false, error: null });
  const latest = useRef(0);
  /** How many results a first page holds ([search] k), once a search has had more than one page. */
  const pageSize = useRef<number | undefined>(undefined);
  const current = useRef<SearchState>(state);
  current.current = state;

  useEffect(() => {
    const trimmed = query.trim();
    const id = ++latest.current;
    if (!enabled || !trimmed) {
      setState({ response: null, loading: false, loadingMore: false, error: null });
      return;
    }
    setState((s) => ({ ...s, loading: true }));
    const timer = setTimeout(() => {
      // A re-run (the index changed) keeps as many results on screen as were shown after "show more".
      const previous = current.current.response;
      const shown = previous?.query === trimmed && previous.mode === mode ? previous.results.length : 0;
      const k = pageSize.current !== undefined && shown > pageSize.current ? Math.min(200, shown) : undefined;
      api.search({ query: trimmed, mode, ...(k ? { k } : {}) }).then(
        (response) => {
          if (id !== latest.current) return;
          if (!k) pageSize.current = response.more ? response.results.length : undefined;
          setState({ response, loading: false, loadingMore: false, error: null });
        },
        (error: unknown) => {
          if (id === latest.current) setState((s) => ({ ...s, loading: false, error: error instanceof Error ? error.message : String(error) }));
        },
      );
    }, DEBOUNCE_MS);
    return () => clearTimeout(timer);
  }, [api, query, mode, revision, enabled]);

  const loadMore = useCallback(() => {
    const { response, loadingMore } = current.current;
    if (!response || !response.more || loadingMore) return;
    const id = latest.current;
    const offset = response.offset + response.results.length;
    setState((s) => ({ ...s, loadingMore: true }));
    api.search({ query: response.query, mode: response.mode, offset }).then(
      (page) => {
        if (id !== latest.current) return;
        setState((s) =>
          s.response
            ? { ...s, loadingMore: false, response: { ...s.response, results: [...s.response.results, ...page.results], total: page.total, more: page.more } }
            : { ...s, loadingMore: false },
        );
      },
      (error: unknown) => {
        if (id === latest.current) setState((s) => ({ ...s, loadingMore: false, error: error instanceof Error ? error.message : String(error) }));
      },
    );
  }, [api]);

  return { ...state, loadMore };
}
