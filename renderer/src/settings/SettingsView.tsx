// Settings: the generated options form and the raw config.toml, over the same file. After a save the core applies
// the config (and rebuilds the index when chunking or the model changed); the status bar shows that progress.
import { useCallback, useEffect, useState } from 'react';
import type { ConfigView } from '../../../core/contract/appApi.ts';
import { useApi } from '../api/ApiContext.tsx';
import { useToasts } from '../hooks/toasts.tsx';
import { ConfigProblemList } from './ConfigProblemList.tsx';
import { ConfigTextEditor } from './ConfigTextEditor.tsx';
import { ModelPicker } from './ModelPicker.tsx';
import { OptionsForm } from './OptionsForm.tsx';

type Tab = 'options' | 'file';

/** `reloadKey` moves when the config or the index changed (after a rebuild, the saved values are the ones in force). */
export function SettingsView({ onClose, reloadKey }: { onClose(): void; reloadKey: string }) {
  const { api } = useApi();
  const { reportError } = useToasts();
  const [view, setView] = useState<ConfigView | null>(null);
  const [tab, setTab] = useState<Tab>('options');

  const load = useCallback(() => api.getConfig().then(setView, (e: unknown) => reportError('Could not read the configuration', e)), [api, reportError]);
  useEffect(() => void load(), [load, reloadKey]);

  // The core announces the applied config (and any rebuild) as an event, shown as a toast by the app model.
  const saved = () => void load();

  return (
    <section className="settings" data-testid="settings">
      <header className="settings-header">
        <button type="button" className="ghost" onClick={onClose}>
          ← Back
        </button>
        <h1>Settings</h1>
        <div className="segmented" role="tablist">
          <button type="button" role="tab" aria-selected={tab === 'options'} className={tab === 'options' ? 'active' : ''} onClick={() => setTab('options')} data-testid="tab-options">
            Options
          </button>
          <button type="button" role="tab" aria-selected={tab === 'file'} className={tab === 'file' ? 'active' : ''} onClick={() => setTab('file')} data-testid="tab-file">
            config.toml
          </button>
        </div>
      </header>
      {view?.problem && (
        <div className="banner danger" role="alert" data-testid="config-file-problem">
          The config.toml on disk is not valid, so the last good configuration stays in force:
          <ConfigProblemList problem={view.problem} />
        </div>
      )}
      <div className="settings-body">
        {!view ? <p className="muted">Loading…</p> : tab === 'options' ? (
          <>
            <ModelPicker reloadKey={reloadKey} />
            <OptionsForm view={view} onSaved={saved} />
          </>
        ) : <ConfigTextEditor view={view} onSaved={saved} />}
      </div>
    </section>
  );
}
