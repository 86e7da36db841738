// Over 400 lines: the shell wires every screen and empty state together, and reads best as one component.
// The app shell: the search/ask box on top, results on the left, the open note on the right, indexing status at
// the bottom; settings and the vault picker replace the workspace when open.
import { useCallback, useEffect, useRef, useState } from 'react';
import type { SearchResponse, SearchResult } from '../../core/contract/appApi.ts';
import { AskPanel, type Passage } from './components/AskPanel.tsx';
import { FailedFiles } from './components/FailedFiles.tsx';
import { FilterExamples } from './components/FilterExamples.tsx';
import { IndexingPanel, IndexingStatus } from './components/IndexingStatus.tsx';
import { NoteView, type NoteTarget } from './components/NoteView.tsx';
import { ResultList } from './components/ResultList.tsx';
import { QueryFilters } from './components/QueryFilters.tsx';
import { TagSuggestions } from './components/TagSuggestions.tsx';
import { SearchBar, type InputMode } from './components/SearchBar.tsx';
import { Toasts } from './components/Toasts.tsx';
import { VaultPicker } from './components/VaultPicker.tsx';
import { VaultSwitcher } from './components/VaultSwitcher.tsx';
import { useApi } from './api/ApiContext.tsx';
import { baseName } from './format.ts';
import { FIRST_INDEX_REASON } from './indexing/progressText.ts';
import { ASK_KEYS, BACK_KEYS, FOCUS_KEYS, SEARCH_KEYS, inField, shortcutOf } from './keyboard.ts';
import { useAppModel } from './hooks/useAppModel.ts';
import { useAsk } from './hooks/useAsk.ts';
import { useSearch } from './hooks/useSearch.ts';
import { useTags } from './hooks/useTags.ts';
import { completeTag } from '../../core/contract/tags.ts';
import { completeTypedTag, replaceTag, typedTag } from './search/tagCompletion.ts';
import type { SearchMode } from './search/searchMode.ts';
import { SettingsView } from './settings/SettingsView.tsx';

type Screen = 'workspace' | 'settings' | 'vaults';

export function App() {
  const { api } = useApi();
  const { model, applyState } = useAppModel();
  const vault = model.state?.vault ?? null;
  const [screen, setScreen] = useState<Screen>('workspace');
  const [query, setQuery] = useState('');
  const [inputMode, setInputMode] = useState<InputMode>('search');
  const [searchMode, setSearchMode] = useState<SearchMode>('hybrid');
  const [selected, setSelected] = useState(0);
  const [note, setNote] = useState<NoteTarget | null>(null);
  const [openChunkId, setOpenChunkId] = useState<string | null>(null);
  const [history, setHistory] = useState<NoteTarget[]>([]);
  const [showFailed, setShowFailed] = useState(false);
  const searchInput = useRef<HTMLInputElement>(null);
  /** The vault folder being opened, and why the last one could not be. */
  const [opening, setOpening] = useState<string | null>(null);
  const [openError, setOpenError] = useState<string | null>(null);

  // In Ask mode nothing is searched as you type: Enter asks, and the answer brings its own passages.
  const activeQuery = inputMode === 'ask' ? '' : query;
  const search = useSearch(activeQuery, searchMode, model.revision, !!vault);
  const asking = useAsk();
  const results = search.response?.results ?? [];
  // The `tag:` being typed completes from the index's tag list.
  const typing = inputMode === 'search' ? typedTag(query) : undefined;
  const tags = useTags(!!typing, model.revision, vault);
  const completions = typing && tags ? completeTag(typing.prefix, tags) : [];
  // With nothing to offer for a prefix typed, the empty state says more (a tag no note has, with the nearest).
  const showCompletions = !!typing && !!tags && (completions.length > 0 || !typing.prefix);
  const pickTag = (tag: string) => {
    if (typing) setQuery(completeTypedTag(query, typing, tag));
    searchInput.current?.focus();
  };
  const incompleteOnly = !!search.response?.incomplete && !search.response.text && search.response.operators.length === 0;
  // `tag:gar` on its way to `tag:gardening`: no note has "gar", but that is no news while tags complete it.
  const stillTyping = !!typing?.prefix && completions.length > 0 && !!search.response?.unknownTags?.some((u) => u.tag.toLowerCase() === typing.prefix.toLowerCase());

  useEffect(() => setSelected(0), [search.response]);

  const focusSearch = useCallback(() => {
    setScreen('workspace');
    // After the workspace (and the input) is back on screen.
    requestAnimationFrame(() => {
      searchInput.current?.focus();
      searchInput.current?.select();
    });
  }, []);

  /** The response's filter chips and problems, with the fixes they offer (replace a misspelt tag, drop a filter). */
  const queryFilters = (response: SearchResponse) => (
    <QueryFilters
      operators={response.operators}
      problems={response.problems ?? []}
      unknownTags={response.unknownTags ?? []}
      onReplaceTag={(wrong, right) => {
        setQuery((q) => replaceTag(q, wrong, right));
        focusSearch();
      }}
      onRemove={(operator) => {
        setQuery((q) => withoutOperator(q, operator.text));
        focusSearch();
      }}
    />
  );

  // The box has focus on load, as soon as it is enabled (a vault is open).
  const hasVault = !!vault;
  useEffect(() => {
    if (hasVault && (document.activeElement === document.body || !document.activeElement)) searchInput.current?.focus();
  }, [hasVault]);
  useEffect(() => {
    if (model.focusRequest > 0) focusSearch();
  }, [model.focusRequest, focusSearch]);

  const openNote = (target: NoteTarget, remember = true) => {
    if (remember && note) setHistory((h) => [...h.slice(-49), note]);
    setNote(target);
  };
  const openResult = (result: SearchResult) => {
    setOpenChunkId(result.chunkId);
    // A passage of merged sections opens at the part the search matched.
    const focusLine = result.parts?.find((part) => part.anchor === result.anchor)?.startLine;
    openNote({ path: result.path, citation: { startLine: result.startLine, endLine: result.endLine, focusLine }, heading: null, headerPath: result.headerPath });
  };
  // A cited passage opens like a search result: the note scrolled to the cited lines, highlighted.
  const openPassage = (passage: Passage) => {
    setOpenChunkId(passage.chunkId);
    openNote({ path: passage.path, citation: { startLine: passage.startLine, endLine: passage.endLine }, heading: null, headerPath: passage.headerPath });
  };
  const back = () => {
    const previous = history.at(-1);
    if (!previous) return;
    setHistory((h) => h.slice(0, -1));
    setNote(previous);
  };
  const closeNote = () => {
    setNote(null);
    setOpenChunkId(null);
    setHistory([]);
    focusSearch();
  };
  const switchInputMode = (mode: InputMode) => {
    setInputMode(mode);
    asking.reset();
    focusSearch();
  };

  // Shortcuts from anywhere in the page (keyboard.ts): Ctrl/Cmd-K, Alt-S / Alt-A, Alt-← (Back), and Esc outside a
  // field closes the open note. The desktop menu sends the focus request over IPC.
  const onShortcut = useRef<(event: KeyboardEvent) => void>(() => {});
  onShortcut.current = (event: KeyboardEvent) => {
    if (event.defaultPrevented) return;
    const shortcut = shortcutOf(event);
    if (shortcut === 'focus') focusSearch();
    else if (shortcut === 'search' || shortcut === 'ask') {
      if (!vault) return;
      switchInputMode(shortcut);
    } else if (shortcut === 'back') {
      if (screen !== 'workspace' || !history.length) return;
      back();
    } else if (event.key === 'Escape' && !inField(event.target) && !showFailed && screen === 'workspace' && note) closeNote();
    else return;
    event.preventDefault();
  };
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => onShortcut.current(event);
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);

  // Opening a vault shows its progress at once: the workspace with the progress panel replaces the picker, unless
  // the folder is refused right away (then the picker says why).
  const openVault = (path: string) => {
    setOpening(path);
    setOpenError(null);
    let settled = false;
    const showProgress = setTimeout(() => !settled && setScreen('workspace'), 250);
    api.openVault(path).then(
      (state) => {
        settled = true;
        clearTimeout(showProgress);
        applyState(state);
        setNote(null);
        setHistory([]);
        setOpening(null);
        setScreen('workspace');
      },
      (e: unknown) => {
        settled = true;
        clearTimeout(showProgress);
        setOpenError(e instanceof Error ? e.message : String(e));
        setOpening(null);
        setScreen('vaults');
      },
    );
  };

  const submit = () => {
    if (inputMode === 'ask') {
      if (query.trim()) asking.ask(query.trim());
      return;
    }
    const result = results[selected];
    if (result) openResult(result);
  };
  const clear = () => {
    setQuery('');
    asking.reset();
  };

  const noteReloadKey = note && model.changedNote?.path === note.path ? model.changedNote.revision : 0;
  // A removed note disappears from the view.
  useEffect(() => {
    if (note && model.changedNote?.path === note.path && model.changedNote.change === 'removed') setNote(null);
  }, [model.changedNote, note]);

  const resultList = (
    <ResultList
      results={results}
      query={search.response?.query ?? activeQuery}
      selected={selected}
      openChunkId={openChunkId}
      stale={!!search.response && search.response.query !== activeQuery.trim()}
      onSelect={setSelected}
      onOpen={openResult}
    />
  );

  return (
    <div className="app">
      <header className="topbar">
        <div className="brand" aria-label="Cairn">
          <svg viewBox="0 0 32 32" aria-hidden="true">
            <path d="M6 28h20l-3-6H9z" fill="currentColor" opacity="0.55" />
            <path d="M10 21h12l-2-5h-8z" fill="currentColor" opacity="0.8" />
            <ellipse cx="16" cy="12" rx="4" ry="3" fill="currentColor" />
          </svg>
          <span>Cairn</span>
        </div>
        <SearchBar
          ref={searchInput}
          query={query}
          onQueryChange={(q) => {
            setQuery(q);
            if (screen !== 'workspace') setScreen('workspace');
          }}
          inputMode={inputMode}
          onInputModeChange={switchInputMode}
          searchMode={searchMode}
          onSearchModeChange={setSearchMode}
          onMove={(delta) => setSelected((s) => Math.max(0, Math.min(results.length - 1, s + delta)))}
          onSubmit={submit}
          onClear={clear}
          onEscapeEmpty={() => {
            if (note) closeNote();
          }}
          loading={search.loading || asking.state?.status === 'asking' || asking.state?.status === 'streaming'}
          disabled={!vault}
        />
        <div className="topbar-actions">
          {vault && (
            <VaultSwitcher
              vault={vault}
              recent={model.state?.recentVaults ?? []}
              opening={opening}
              onOpen={openVault}
              onOther={() => {
                setOpenError(null);
                setScreen('vaults');
              }}
            />
          )}
          <button type="button" className={`ghost${screen === 'settings' ? ' active' : ''}`} onClick={() => setScreen(screen === 'settings' ? 'workspace' : 'settings')} data-testid="settings-button" aria-label="Settings">
            <svg viewBox="0 0 20 20" width="16" height="16" aria-hidden="true">
              <path
                fill="currentColor"
                d="M11.3 1.5l.4 2.2c.6.2 1.1.5 1.6.9l2.1-.8 1.3 2.3-1.7 1.4c.1.6.1 1.2 0 1.8l1.7 1.4-1.3 2.3-2.1-.8c-.5.4-1 .7-1.6.9l-.4 2.2H8.7l-.4-2.2c-.6-.2-1.1-.5-1.6-.9l-2.1.8-1.3-2.3L5 9.3c-.1-.6-.1-1.2 0-1.8L3.3 6.1l1.3-2.3 2.1.8c.5-.4 1-.7 1.6-.9l.4-2.2h2.6zM10 6.5a2.5 2.5 0 100 5 2.5 2.5 0 000-5z"
                transform="translate(0 1)"
              />
            </svg>
            <span>Settings</span>
          </button>
        </div>
      </header>

      <main className="workspace">
        {!model.state ? (
          <div className="empty-state centered">
            <p className="muted">Connecting to Cairn…</p>
          </div>
        ) : screen === 'settings' ? (
          <SettingsView onClose={() => setScreen('workspace')} reloadKey={`${model.configRevision}:${model.indexRevision}`} />
        ) : !vault || screen === 'vaults' ? (
          <VaultPicker state={model.state} opening={opening} error={openError} onOpen={openVault} onCancel={vault ? () => setScreen('workspace') : undefined}>
            <IndexingPanel model={model} opening={opening && baseName(opening)} />
          </VaultPicker>
        ) : (
          <div className="panes">
            <section className="results-pane" aria-label="Results">
              <IndexingPanel model={model} opening={opening && baseName(opening)} />
              {search.error && (
                <div className="banner danger" role="alert">
                  Search failed: {search.error}
                </div>
              )}
              {inputMode === 'ask' && asking.state ? (
                <AskPanel state={asking.state} openTarget={note} onOpen={openPassage} onRetry={() => asking.ask(asking.state!.question)} />
              ) : activeQuery.trim() ? (
                search.response && results.length === 0 && !search.loading ? (
                  stillTyping ? (
                    <div className="empty-state" data-testid="tag-typing">
                      <TagSuggestions tags={completions} prefix={typing!.prefix} onPick={pickTag} />
                      <p className="muted">No note has the tag #{typing!.prefix}: pick one of these, or keep typing.</p>
                    </div>
                  ) : incompleteOnly ? (
                    <div className="empty-state" data-testid="filter-incomplete">
                      {showCompletions && <TagSuggestions tags={completions} prefix={typing!.prefix} onPick={pickTag} />}
                      <h2>Finish the filter</h2>
                      <p className="muted">
                        {search.response.incomplete!.join(' ')} needs a value: <FilterExamples />.{typing ? ' Pick a tag above, or keep typing.' : ''}
                      </p>
                    </div>
                  ) : (
                    <div className="empty-state" data-testid="no-results">
                      {showCompletions && <TagSuggestions tags={completions} prefix={typing!.prefix} onPick={pickTag} />}
                      <h2>
                        {search.response.unknownTags?.length
                          ? `No note has the tag ${search.response.unknownTags.map((t) => `#${t.tag}`).join(', ')}`
                          : `No passages match “${activeQuery.trim()}”`}
                      </h2>
                      {queryFilters(search.response)}
                      {!search.response.unknownTags?.length && <p className="muted">Try other words, or switch the mode to Meaning to search by similarity.</p>}
                    </div>
                  )
                ) : (
                  <>
                    {showCompletions && <TagSuggestions tags={completions} prefix={typing!.prefix} onPick={pickTag} />}
                    {search.response && results.length > 0 && (
                      <p className="results-summary muted small" data-testid="results-summary">
                        {resultsSummary(results.length, search.response.total ?? results.length, !!search.response.text)}
                        {search.response.text ? ` · ${search.response.mode}` : ', newest first'}
                        {search.response.more && (
                          <>
                            {' — '}
                            <button type="button" className="link-button" data-testid="show-more-summary" tabIndex={-1} onClick={search.loadMore} disabled={search.loadingMore}>
                              show more
                            </button>
                          </>
                        )}{' '}
                        · {Math.round(search.response.tookMs)} ms
                        {model.progress && model.rebuilding === FIRST_INDEX_REASON && (
                          <span className="warning-text" data-testid="results-partial">
                            {' '}
                            · partial: {model.progress.done.toLocaleString()} of {model.progress.total.toLocaleString()} notes indexed so far
                          </span>
                        )}
                        {search.response.expansions.length > 0 && <> · also searched: {search.response.expansions.slice(0, 4).map((e) => e.term).join(', ')}</>}
                      </p>
                    )}
                    {search.response && queryFilters(search.response)}
                    {resultList}
                    {search.response?.more && (
                      <div className="show-more">
                        <button type="button" data-testid="show-more" onClick={search.loadMore} disabled={search.loadingMore}>
                          {search.loadingMore ? 'Loading…' : `Show more (${(search.response.total - results.length).toLocaleString()} more)`}
                        </button>
                      </div>
                    )}
                  </>
                )
              ) : (
                <div className="empty-state" data-testid="search-empty">
                  <h2>{inputMode === 'ask' ? 'Ask a question' : 'Search your notes'}</h2>
                  <p className="muted">
                    {inputMode === 'ask'
                      ? 'Type a question and press Enter. Cairn answers from your notes and cites the lines it used: click a citation to read it in place.'
                      : 'Results appear as you type, each cited as note › heading with its lines. ↑ ↓ to move, Enter to open, Esc to clear (again to close the note).'}
                  </p>
                  <p className="muted small" data-testid="shortcut-help">
                    Keys: <kbd>{FOCUS_KEYS}</kbd> search box · <kbd>{SEARCH_KEYS}</kbd> Search · <kbd>{ASK_KEYS}</kbd> Ask · <kbd>{BACK_KEYS}</kbd> Back · <kbd>Esc</kbd> clear, then close the note
                  </p>
                  <p className="muted small">
                    Narrow a search or a question with <FilterExamples />; filters alone list the matching notes, newest first.
                  </p>
                </div>
              )}
            </section>
            <section className="note-pane" aria-label="Note">
              {note ? (
                <NoteView target={note} vault={vault} reloadKey={noteReloadKey} canGoBack={history.length > 0} onBack={back} onClose={closeNote} onNavigate={(t) => openNote(t)} />
              ) : (
                <div className="empty-state centered">
                  <p className="muted">Open a result to read the note, with the cited passage highlighted.</p>
                </div>
              )}
            </section>
          </div>
        )}
      </main>

      <IndexingStatus model={model} onShowFailed={() => setShowFailed(true)} onShowSettings={() => setScreen('settings')} />
      {showFailed && <FailedFiles files={model.failedFiles} onClose={() => setShowFailed(false)} />}
      <Toasts />
    </div>
  );
}

/** "10 of 75 notes kept by the filters", "10 of 60 passages", or "3 passages" when that is all. */
export function resultsSummary(shown: number, total: number, ranked: boolean): string {
  const noun = ranked ? (total === 1 ? 'passage' : 'passages') : `${total === 1 ? 'note' : 'notes'} kept by the filters`;
  return shown < total ? `${shown.toLocaleString()} of ${total.toLocaleString()} ${noun}` : `${total.toLocaleString()} ${noun}`;
}

/** The query without one operator as typed (its first occurrence), the spaces around it closed up. */
function withoutOperator(query: string, operator: string): string {
  const at = query.indexOf(operator);
  if (at < 0) return query;
  return `${query.slice(0, at).trimEnd()} ${query.slice(at + operator.length).trimStart()}`.trim();
}

