// The one box: search as you type, or (Ask) a question submitted with Enter. ↑/↓ move through the results,
// Enter opens the selected one, Esc clears (and, the box already empty, closes the open note). Ctrl/Cmd-K focuses
// it from anywhere, Alt-S / Alt-A switch Search and Ask (see App and keyboard.ts). While `tag:` suggestions show,
// ↑/↓ move through them, Tab or Enter take the highlighted one, and a first Esc closes them (TagSuggestions.tsx).
import { forwardRef, type KeyboardEvent } from 'react';
import { ASK_KEYS, FOCUS_KEYS, SEARCH_KEYS } from '../keyboard.ts';
import { SEARCH_MODE_OPTIONS, type SearchMode } from '../search/searchMode.ts';
import { handleTagSuggestionKey, useTagSuggestionsAria } from './TagSuggestions.tsx';

export type InputMode = 'search' | 'ask';

interface SearchBarProps {
  query: string;
  onQueryChange(query: string): void;
  inputMode: InputMode;
  onInputModeChange(mode: InputMode): void;
  searchMode: SearchMode;
  onSearchModeChange(mode: SearchMode): void;
  onMove(delta: 1 | -1): void;
  onSubmit(): void;
  onClear(): void;
  /** Esc in an empty box. */
  onEscapeEmpty(): void;
  loading: boolean;
  disabled: boolean;
}

export const SearchBar = forwardRef<HTMLInputElement, SearchBarProps>(function SearchBar(props, ref) {
  const tagListAria = useTagSuggestionsAria();
  const onKeyDown = (event: KeyboardEvent<HTMLInputElement>) => {
    // While tag suggestions show, the arrows, Tab/Enter on a highlight and a first Esc are theirs.
    if (handleTagSuggestionKey(event)) return;
    if (event.key === 'ArrowDown') props.onMove(1);
    else if (event.key === 'ArrowUp') props.onMove(-1);
    else if (event.key === 'Enter') props.onSubmit();
    else if (event.key === 'Escape') {
      if (props.query) props.onClear();
      else props.onEscapeEmpty();
    }
    else return;
    event.preventDefault();
  };
  const asking = props.inputMode === 'ask';
  return (
    <div className="search-bar" role="search">
      <div className="segmented" role="tablist" aria-label="Search or ask">
        {(['search', 'ask'] as const).map((mode) => (
          <button
            key={mode}
            type="button"
            role="tab"
            aria-selected={props.inputMode === mode}
            className={props.inputMode === mode ? 'active' : ''}
            title={mode === 'search' ? `Search as you type (${SEARCH_KEYS})` : `Ask a question (${ASK_KEYS})`}
            aria-keyshortcuts={mode === 'search' ? 'Alt+S' : 'Alt+A'}
            onClick={() => props.onInputModeChange(mode)}
          >
            {mode === 'search' ? 'Search' : 'Ask'}
          </button>
        ))}
      </div>
      <div className={`search-input-wrap${props.loading ? ' loading' : ''}`}>
        <svg className="search-icon" viewBox="0 0 20 20" aria-hidden="true">
          <circle cx="8.5" cy="8.5" r="5.5" fill="none" stroke="currentColor" strokeWidth="1.8" />
          <path d="M13 13l4.5 4.5" stroke="currentColor" strokeWidth="1.8" strokeLinecap="round" />
        </svg>
        <input
          ref={ref}
          data-testid="search-input"
          type="search"
          value={props.query}
          disabled={props.disabled}
          placeholder={asking ? 'Ask your notes a question and press Enter' : 'Search your notes'}
          aria-label={asking ? 'Question' : 'Search'}
          {...tagListAria}
          autoComplete="off"
          autoFocus
          aria-keyshortcuts="Control+K Meta+K"
          spellCheck={false}
          onChange={(event) => props.onQueryChange(event.target.value)}
          onKeyDown={onKeyDown}
        />
        {props.loading && <span className="spinner" aria-label="Searching" />}
        <kbd className="shortcut-hint" title={`Focus the search box (${FOCUS_KEYS})`}>
          {FOCUS_KEYS}
        </kbd>
      </div>
      <select
        className="mode-select"
        aria-label="Search mode"
        data-testid="search-mode"
        value={props.searchMode}
        disabled={props.disabled || asking}
        title={asking ? 'Questions are always answered from a hybrid search' : undefined}
        onChange={(event) => props.onSearchModeChange(event.target.value as SearchMode)}
      >
        {SEARCH_MODE_OPTIONS.map((m) => (
          <option key={m.mode} value={m.mode} title={m.hint}>
            {m.label}
          </option>
        ))}
      </select>
    </div>
  );
});
