// Choosing the vault: the OS folder dialog in the desktop app, a path field in the browser; recent vaults either way.
import { useState, type FormEvent, type ReactNode } from 'react';
import type { AppState } from '../../../core/appApi.ts';
import { useApi } from '../api/ApiContext.tsx';
import { baseName } from '../format.ts';

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
    if (folder.trim()) open(folder.trim());
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
              <input id="vault-path" data-testid="vault-path" type="text" value={folder} placeholder="/home/me/notes" onChange={(event) => setFolder(event.target.value)} spellCheck={false} autoFocus />
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
