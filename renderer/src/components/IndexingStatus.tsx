// The bottom line: while indexing, a progress bar with counts, ETA and the rebuild reason; when idle, what the
// index holds (notes, chunks, the model's name; the internals in its tooltip); always, how many files failed and
// whether config.toml is bad. IndexingPanel says the same about indexing where the eye is: above the results.
import type { AppModel } from '../hooks/useAppModel.ts';
import { modelName, plural } from '../format.ts';
import { FIRST_INDEX_REASON, etaText, indexingHeading, phaseText } from '../indexing/progressText.ts';

const ADAPT_PHASES: Record<NonNullable<AppModel['adapting']>['phase'], string> = {
  mining: 'collecting examples from the notes',
  training: 'training steps',
  writing: 'saving the table',
};

interface IndexingStatusProps {
  model: AppModel;
  onShowFailed(): void;
  onShowSettings(): void;
}

/** Indexing as words: heading, reason, phase with its count, time left. */
function IndexingText({ model, currentFile }: { model: AppModel; currentFile: boolean }) {
  const { progress, rebuilding, eta } = model;
  if (!progress) return null;
  const heading = indexingHeading(rebuilding);
  const left = etaText(eta, progress.done, progress.total);
  return (
    <div className="indexing-text">
      <strong data-testid="indexing-title">{heading.title}</strong>
      {heading.reason && <span className="rebuild-reason" data-testid="rebuild-reason"> ({heading.reason})</span>}
      <span className="phase" data-testid="indexing-phase">
        {' — '}
        {phaseText(progress.phase, progress.done, progress.total)}
      </span>
      {progress.phase !== 'persist' && (
        <span className="eta" data-testid="indexing-eta">
          {' · '}
          {left ?? 'estimating the time left…'}
        </span>
      )}
      {currentFile && progress.currentFile && <span className="current-file muted"> · {progress.currentFile}</span>}
    </div>
  );
}

/** The prominent version, shown on top of the results pane while indexing (or opening a vault). */
export function IndexingPanel({ model, opening }: { model: AppModel; opening: string | null }) {
  const { progress } = model;
  if (!progress && !opening) return null;
  return (
    <div className="indexing-panel" role="status" data-testid="indexing-panel">
      {progress ? (
        <>
          <IndexingText model={model} currentFile={false} />
          <progress max={Math.max(progress.total, 1)} value={progress.done} aria-label="Indexing progress" />
          <p className="muted small">
            {model.rebuilding === FIRST_INDEX_REASON
              ? 'You can search already: results come from the notes indexed so far.'
              : model.rebuilding
                ? 'Searches use the previous index until the new one is ready.'
                : 'Searches keep working meanwhile.'}
          </p>
        </>
      ) : (
        <>
          <div className="indexing-text">
            <strong data-testid="indexing-title">Opening {opening}…</strong>
          </div>
          <progress aria-label="Opening the vault" />
        </>
      )}
    </div>
  );
}

export function IndexingStatus({ model, onShowFailed, onShowSettings }: IndexingStatusProps) {
  const { progress, adapting, state, failedFiles, configProblem } = model;
  const status = state?.status;
  const failed = failedFiles.filter((f) => f.state === 'failed');
  const warned = failedFiles.filter((f) => f.state === 'indexed' && f.reason);
  const details = status
    ? [
        status.model,
        `${status.dims} dimensions, ${status.dtype}, window ${status.tokenWindow} tokens`,
        `vectors: ${status.vectorBackend}${status.vectorKind === 'hnsw' ? ' (HNSW)' : ''}`,
        status.faissUnavailable ? `faiss unavailable: ${status.faissUnavailable}` : '',
      ]
        .filter(Boolean)
        .join('\n')
    : '';
  return (
    <footer className="status-bar">
      {progress ? (
        <div className="indexing" data-testid="indexing-progress" role="status">
          <IndexingText model={model} currentFile />
          <progress max={Math.max(progress.total, 1)} value={progress.done} aria-label="Indexing progress" />
        </div>
      ) : adapting ? (
        <div className="indexing" data-testid="adapting-progress" role="status">
          <div className="indexing-text">
            <strong>Learning this vault&apos;s vocabulary</strong>
            <span className="phase">
              {' — '}
              {ADAPT_PHASES[adapting.phase]} {adapting.total > 1 && `${adapting.done.toLocaleString()} / ${adapting.total.toLocaleString()}`}
            </span>
            <span className="muted"> · searches work meanwhile</span>
          </div>
          <progress max={Math.max(adapting.total, 1)} value={adapting.done} aria-label="Vocabulary learning progress" />
        </div>
      ) : status ? (
        <div className="status-line" data-testid="status-line" role="status">
          <span className="ok-dot" aria-hidden="true" />
          <span data-testid="status-notes">{plural(status.notes, 'note')}</span>
          <span className="sep">·</span>
          <span data-testid="status-chunks">{plural(status.chunks, 'chunk')}</span>
          <span className="sep">·</span>
          <span title={details} data-testid="status-model">
            model {modelName(status.model)}
            {status.table.kind === 'adapted' ? ' (adapted to this vault)' : ''}
          </span>
          {status.pendingRebuild && <span className="warning-text"> · rebuild pending: {status.pendingRebuild}</span>}
          {state?.vaultFolderGone && (
            <span className="warning-text" title={state.vault ?? undefined} data-testid="status-folder-gone">
              {' '}
              · vault folder missing: answering from the index as it was
            </span>
          )}
          {status.unsaved && (
            <span className="warning-text" title={status.unsaved} data-testid="status-unsaved">
              {' '}
              · not saved: changes are searchable but kept in memory only
            </span>
          )}
        </div>
      ) : (
        <div className="status-line muted" role="status">
          {state?.vault ? 'Opening the vault…' : 'No vault open'}
        </div>
      )}
      <div className="status-actions">
        {configProblem && (
          <button type="button" className="status-chip danger" onClick={onShowSettings} data-testid="config-problem-chip">
            config.toml has a problem
          </button>
        )}
        {(failed.length > 0 || warned.length > 0) && (
          <button type="button" className="status-chip warning" onClick={onShowFailed} data-testid="failed-files-button">
            {[failed.length > 0 && `${plural(failed.length, 'file')} failed`, warned.length > 0 && `${plural(warned.length, 'note')} with a warning`].filter(Boolean).join(', ')}
          </button>
        )}
      </div>
    </footer>
  );
}
