// The embedding model as a choice, not a free-text id: the bundled models and a short list of hub models (from
// core/embedding/modelCatalog.ts, through listModels) with size, languages and relative speed, plus "other (hub
// id)". Choosing one downloads it when it is not on disk (progress, cancel; a later choice resumes), then the core
// saves [embedding] model and the vault rebuilds with the embedding cache. Offline, it says so and nothing changes.
import { useCallback, useEffect, useState } from 'react';
import type { AppEvent, ModelChoiceView, ModelDownloadProgress, ModelsView } from '../../../core/contract/appApi.ts';
import { useApi } from '../api/ApiContext.tsx';
import { useToasts } from '../hooks/toasts.tsx';

const OTHER = '__other__';
const HUB_ID = /^[\w.-]{1,96}\/[\w.-]{1,96}$/;

type Outcome = { kind: 'ok' | 'error'; text: string } | null;

const megabytes = (bytes: number) => (bytes < 1e6 ? `${(bytes / 1e3).toFixed(1)} kB` : `${(bytes / 1e6).toFixed(1)} MB`);

export function ModelPicker({ reloadKey }: { reloadKey: string }) {
  const { api } = useApi();
  const { reportError } = useToasts();
  const [view, setView] = useState<ModelsView | null>(null);
  const [selected, setSelected] = useState<string | null>(null);
  const [otherId, setOtherId] = useState('');
  const [busy, setBusy] = useState<string | null>(null);
  const [progress, setProgress] = useState<ModelDownloadProgress | null>(null);
  const [outcome, setOutcome] = useState<Outcome>(null);

  const load = useCallback(() => api.listModels().then(setView, (e: unknown) => reportError('Could not list the embedding models', e)), [api, reportError]);
  useEffect(() => void load(), [load, reloadKey]);
  useEffect(
    () =>
      api.subscribe((event: AppEvent) => {
        if (event.type === 'model-download') setProgress(event);
      }),
    [api],
  );

  const listed = view?.models ?? [];
  const current = view?.current ?? null;
  const choice = selected ?? current;
  const chosenId = choice === OTHER ? otherId.trim() : choice;
  const otherInvalid = choice === OTHER && !HUB_ID.test(otherId.trim());

  const use = async () => {
    if (!chosenId || otherInvalid) return;
    setBusy(chosenId);
    setProgress(null);
    setOutcome(null);
    try {
      const result = await api.chooseModel(chosenId);
      if (result.ok) {
        setOutcome({ kind: 'ok', text: result.rebuild ? `Now using ${chosenId}: rebuilding the index with it (embeddings already computed are reused).` : `Using ${chosenId}.` });
        setSelected(null);
      } else {
        setOutcome({ kind: 'error', text: result.message });
      }
    } catch (e) {
      setOutcome({ kind: 'error', text: e instanceof Error ? e.message : String(e) });
    } finally {
      setBusy(null);
      setProgress(null);
      void load();
    }
  };

  const row = (m: ModelChoiceView) => (
    <label key={m.id} className={`model-choice${m.id === current ? ' current' : ''}`} data-testid={`model-choice-${m.id}`}>
      <input type="radio" name="embedding-model" value={m.id} checked={choice === m.id} disabled={busy !== null} onChange={() => setSelected(m.id)} />
      <span className="model-choice-text">
        <strong>{m.label}</strong> <code className="muted small">{m.id}</code>
        {m.id === current && <span className="badge">in use</span>}
        <br />
        <span className="muted small">
          {m.size} · {m.languages} · {m.speed}
          {m.onDisk ? (m.bundled ? '' : ' · downloaded') : ' · needs a download'}
          {(m.prefixes.query || m.prefixes.passage) && ` · prefixes: query "${m.prefixes.query}"${m.prefixes.passage ? `, passage "${m.prefixes.passage}"` : ''}`}
        </span>
      </span>
    </label>
  );

  return (
    <fieldset className="model-picker" data-testid="model-picker">
      <legend>Embedding model</legend>
      <p className="option-doc">
        The model that turns notes and queries into vectors. Changing it rebuilds the index in the background (the old index answers meanwhile); a hub model
        is downloaded once into the data folder.
      </p>
      {!view ? (
        <p className="muted">Loading…</p>
      ) : (
        <div role="radiogroup" aria-label="Embedding model">
          {listed.map(row)}
          <label className="model-choice" data-testid="model-choice-other">
            <input type="radio" name="embedding-model" value={OTHER} checked={choice === OTHER} disabled={busy !== null} onChange={() => setSelected(OTHER)} />
            <span className="model-choice-text">
              <strong>Other (hub id)</strong>{' '}
              <input
                type="text"
                placeholder="owner/name, e.g. Xenova/gte-small"
                value={otherId}
                disabled={busy !== null}
                onFocus={() => setSelected(OTHER)}
                onChange={(e) => setOtherId(e.target.value)}
                aria-invalid={otherInvalid && otherId !== '' ? true : undefined}
                data-testid="model-other-id"
                spellCheck={false}
              />
              <br />
              <span className="muted small">Any Hugging Face model with ONNX weights for transformers.js (onnx/model_quantized.onnx for q8).</span>
            </span>
          </label>
        </div>
      )}
      <div className="form-actions">
        {busy ? (
          <>
            <span className="muted small" role="status" data-testid="model-download-progress">
              {progress && progress.modelId === busy
                ? `Downloading ${busy}: ${progress.file} (${progress.fileIndex} of ${progress.fileCount}), ${megabytes(progress.loaded)}${progress.size ? ` of ${megabytes(progress.size)}` : ''}`
                : `Getting ${busy} ready…`}
            </span>
            {progress && progress.size > 0 && <progress max={progress.size} value={progress.loaded} />}
            <button type="button" className="ghost" onClick={() => void api.cancelModelDownload()} data-testid="model-cancel">
              Cancel
            </button>
          </>
        ) : (
          <button type="button" className="primary" disabled={!chosenId || chosenId === current || otherInvalid} onClick={() => void use()} data-testid="model-use">
            Use this model
          </button>
        )}
      </div>
      {outcome && (
        <p className={outcome.kind === 'error' ? 'error-text' : 'muted'} role={outcome.kind === 'error' ? 'alert' : 'status'} data-testid="model-outcome">
          {outcome.text}
        </p>
      )}
    </fieldset>
  );
}
