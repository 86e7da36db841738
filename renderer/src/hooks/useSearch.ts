// Search as you type: waits 150 ms after the last keystroke, and drops any answer that arrives after a newer
// query was sent (a slow vector search must not overwrite the results of what the user typed since).
import { useEffect, useRef, useState } from 'react';
import type { SearchResponse } from '../../../core/appApi.ts';
import type { SearchMode } from '../search/searchMode.ts';
import { useApi } from '../api/ApiContext.tsx';

const DEBOUNCE_MS = 150;

export interface SearchState {
  response: SearchResponse | null;
  loading: boolean;
  error: string | null;
}

/** `revision` re-runs the current query (the index changed). */
export function useSearch(query: string, mode: SearchMode, revision: number, enabled: boolean): SearchState {
  const { api } = useApi();
  const [state, setState] = useState<SearchState>({ response: null, loading: false, error: null });
  const latest = useRef(0);

  useEffect(() => {
    const trimmed = query.trim();
    const id = ++latest.current;
    if (!enabled || !trimmed) {
      setState({ response: null, loading: false, error: null });
      return;
    }
    setState((s) => ({ ...s, loading: true }));
    const timer = setTimeout(() => {
      api.search({ query: trimmed, mode }).then(
        (response) => {
          if (id === latest.current) setState({ response, loading: false, error: null });
        },
        (error: unknown) => {
          if (id === latest.current) setState((s) => ({ ...s, loading: false, error: error instanceof Error ? error.message : String(error) }));
        },
      );
    }, DEBOUNCE_MS);
    return () => clearTimeout(timer);
  }, [api, query, mode, revision, enabled]);

  return state;
}
