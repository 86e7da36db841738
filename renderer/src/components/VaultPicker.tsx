// Choosing the vault: the OS folder dialog in the desktop app, a path field in the browser; recent vaults either way.
import { useState, type FormEvent } from 'react';
import type { AppState } from '../../../core/appApi.ts';
import { useApi } from '../api/ApiContext.tsx';
import { baseName } from '../format.ts';

interface VaultPickerProps {
  state: AppState | null;
  onOpened(state: AppState): void;
  onCancel?(): void;
}

export function VaultPicker({ state, onOpened, onCancel }: VaultPickerProps) {
  const { api, desktop } = useApi();
  const [folder, setFolder] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  const open = async (path: string) => {
    setBusy(true);
    setError(null);
    try {
      onOpened(await api.openVault(path));
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
    } finally {
      setBusy(false);
    }
  };

  const choose = async () => {
    const path = await desktop!.chooseFolder().catch((e: unknown) => {
      setError(e instanceof Error ? e.message : String(e));
      return null;
    });
    if (path) await open(path);
  };

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (folder.trim()) void open(folder.trim());
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
                  <button type="button" className="link-button" onClick={() => void open(vault)} disabled={busy}>
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
