// Choosing the vault: the OS folder dialog in the desktop app, a path field in the browser; recent vaults either way.
// The path field completes folders as it is typed (completeFolder in the core): ↑/↓ move through them, Tab or Enter
// take the highlighted one (and list its sub-folders), Esc closes the list; Enter without a highlight opens the path.
import { useEffect, useState, type FormEvent, type KeyboardEvent, type ReactNode } from 'react';
import type { AppState, FolderCompletion, FolderKind } from '../../../core/contract/appApi.ts';
import { useApi } from '../api/ApiContext.tsx';
import { baseName } from '../format.ts';
import { listboxAction, optionId } from '../hooks/listboxKeys.ts';

const LIST_ID = 'folder-completions';
/** Asked for once typing pauses this long. */
const COMPLETE_DELAY_MS = 120;
const KIND_LABELS: Record<FolderKind, string> = { obsidian: 'Obsidian vault', logseq: 'Logseq graph', markdown: 'Markdown notes' };

interface VaultPickerProps {
  state: AppState | null;
  /** The folder being opened (by App), if any. */
  opening: string | null;
  /** Why the last folder could not be opened. */
  error: string | null;
  onOpen(path: string): void;
  onCancel?(): void;
  /** Shown while a folder is being opened: its progress. */
  children?: ReactNode;
}

export function VaultPicker({ state, opening, error: openError, onOpen, onCancel, children }: VaultPickerProps) {
  const { desktop } = useApi();
  const [folder, setFolder] = useState('');
  const [chooseError, setChooseError] = useState<string | null>(null);
  const busy = opening !== null;
  const error = chooseError ?? openError;

  const open = (path: string) => {
    setChooseError(null);
    onOpen(path);
  };

  const choose = async () => {
    const path = await desktop!.chooseFolder().catch((e: unknown) => {
      setChooseError(e instanceof Error ? e.message : String(e));
      return null;
    });
    if (path) open(path);
  };

  const submit = (event: FormEvent) => {
    event.preventDefault();
    // "/home/me/notes/" (as a completion leaves it) is the folder itself.
    const path = folder.trim().replace(/(.)[\\/]+$/, '$1');
    if (path) open(path);
  };

  const recent = (state?.recentVaults ?? []).filter((v) => v !== state?.vault);
  return (
    <div className="vault-picker" data-testid="vault-picker">
      <div className="card">
        <h1>{state?.vault ? 'Open another vault' : 'Welcome to Cairn'}</h1>
        <p className="muted">Choose the folder of Markdown notes to search: an Obsidian, Logseq or Dendron vault, or any folder of .md files. Cairn keeps its index outside the folder and never changes your notes.</p>
        {desktop ? (
          <button type="button" className="primary" onClick={() => void choose()} disabled={busy}>
            Choose a folder…
          </button>
        ) : (
          <form onSubmit={submit} className="path-form">
            <label htmlFor="vault-path">Full path of the folder</label>
            <div className="row">
              <FolderPathField value={folder} onChange={setFolder} />
              <button type="submit" className="primary" disabled={busy || !folder.trim()}>
                Open
              </button>
            </div>
          </form>
        )}
        {busy && children}
        {error && (
          <p className="error-text" role="alert">
            {error}
          </p>
        )}
        {recent.length > 0 && (
          <>
            <h2>Recent vaults</h2>
            <ul className="recent-vaults">
              {recent.map((vault) => (
                <li key={vault}>
                  <button type="button" className="link-button" onClick={() => open(vault)} disabled={busy}>
                    {baseName(vault)}
                  </button>
                  <span className="muted small">{vault}</span>
                </li>
              ))}
            </ul>
          </>
        )}
        {onCancel && state?.vault && (
          <button type="button" className="ghost back" onClick={onCancel}>
            ← Back to {baseName(state.vault)}
          </button>
        )}
      </div>
    </div>
  );
}

/** The folders listed for `prefix` (the text they were asked for). */
interface Completions {
  prefix: string;
  list: FolderCompletion[];
}

/**
 * The completions that still fit the text while its own are being asked for: those of a shorter text of the same
 * folder whose names start with the segment typed since; none once the text names another folder (as after taking
 * one), so that Enter never takes a folder that is no longer offered.
 */
function stillMatching({ prefix, list }: Completions, value: string): FolderCompletion[] {
  if (value === prefix) return list;
  if (!value.startsWith(prefix) || /[\\/]/.test(value.slice(prefix.length))) return [];
  const segment = value.split(/[\\/]/).pop()!.toLowerCase();
  return list.filter((completion) => completion.name.toLowerCase().startsWith(segment));
}

/** The path field with its list of folder completions (an ARIA combobox). */
function FolderPathField({ value, onChange }: { value: string; onChange(value: string): void }) {
  const { api } = useApi();
  const [completions, setCompletions] = useState<Completions>({ prefix: '', list: [] });
  const [active, setActive] = useState(-1);
  const [listOpen, setListOpen] = useState(false);

  useEffect(() => {
    if (!listOpen || !value.trim()) return setCompletions({ prefix: value, list: [] });
    let stale = false;
    const timer = setTimeout(() => {
      api.completeFolder(value).then(
        (list) => !stale && setCompletions({ prefix: value, list }),
        () => !stale && setCompletions({ prefix: value, list: [] }),
      );
    }, COMPLETE_DELAY_MS);
    return () => {
      stale = true;
      clearTimeout(timer);
    };
  }, [api, value, listOpen]);

  const shown = listOpen ? stillMatching(completions, value) : [];
  const edit = (text: string) => {
    onChange(text);
    setActive(-1);
    setListOpen(true);
  };
  // The trailing "/" lists the folder's own sub-folders next; Enter then opens it.
  const accept = (completion: FolderCompletion) => edit(`${completion.path}/`);
  const onKeyDown = (event: KeyboardEvent<HTMLInputElement>) => {
    const action = listboxAction(event, active, shown.length);
    if (!action) return;
    if (action.type === 'move') setActive(action.active);
    else if (action.type === 'accept') accept(shown[action.index]!);
    else setListOpen(false);
    event.preventDefault();
    event.stopPropagation();
  };

  return (
    <div className="path-field">
      <input
        id="vault-path"
        data-testid="vault-path"
        type="text"
        value={value}
        placeholder="/home/me/notes"
        spellCheck={false}
        autoComplete="off"
        autoFocus
        role="combobox"
        aria-autocomplete="list"
        aria-expanded={shown.length > 0}
        aria-controls={shown.length > 0 ? LIST_ID : undefined}
        aria-activedescendant={active >= 0 && shown.length > 0 ? optionId(LIST_ID, active) : undefined}
        onChange={(event) => edit(event.target.value)}
        onKeyDown={onKeyDown}
        onBlur={() => setListOpen(false)}
      />
      {shown.length > 0 && (
        <ul className="folder-completions" role="listbox" id={LIST_ID} aria-label="Folders" data-testid="folder-completions">
          {shown.map((completion, i) => (
            <li
              key={completion.path}
              id={optionId(LIST_ID, i)}
              role="option"
              aria-selected={i === active}
              className={`folder-completion${i === active ? ' active' : ''}`}
              data-testid="folder-completion"
              data-kind={completion.kind}
              title={completion.path}
              onMouseDown={(event) => event.preventDefault()}
              onClick={() => accept(completion)}
            >
              <span>{completion.name}/</span>
              {completion.kind && <span className="folder-kind muted small">{KIND_LABELS[completion.kind]}</span>}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
