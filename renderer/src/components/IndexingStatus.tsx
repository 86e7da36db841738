// The bottom line: while indexing, a progress bar with counts, ETA and the rebuild reason; when idle, what the
// index holds (notes, chunks, model, vector backend); always, how many files failed and whether config.toml is bad.
import type { AppModel } from '../hooks/useAppModel.ts';
import { formatDuration, plural } from '../format.ts';

const PHASES: Record<string, string> = {
  scan: 'Scanning files',
  chunk: 'Chunking notes',
  embed: 'Embedding chunks',
  index: 'Updating the indices',
  persist: 'Saving the index',
};

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

export function IndexingStatus({ model, onShowFailed, onShowSettings }: IndexingStatusProps) {
  const { progress, rebuilding, adapting, state, failedFiles, configProblem } = model;
  const status = state?.status;
  const failed = failedFiles.filter((f) => f.state === 'failed');
  return (
    <footer className="status-bar">
      {progress ? (
        <div className="indexing" data-testid="indexing-progress" role="status">
          <div className="indexing-text">
            <strong>{rebuilding ? 'Rebuilding the index' : 'Indexing'}</strong>
            {rebuilding && <span className="rebuild-reason" data-testid="rebuild-reason"> ({rebuilding})</span>}
            <span className="phase">
              {' — '}
              {PHASES[progress.phase] ?? progress.phase} {progress.total > 0 && `${progress.done.toLocaleString()} / ${progress.total.toLocaleString()}`}
            </span>
            {progress.etaSeconds !== undefined && progress.etaSeconds > 0 && (
              <span className="eta"> · {progress.etaSeconds < 1 ? 'almost done' : `about ${formatDuration(progress.etaSeconds)} left`}</span>
            )}
            {progress.currentFile && <span className="current-file muted"> · {progress.currentFile}</span>}
          </div>
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
          <span title={`${status.dims} dimensions, ${status.dtype}, window ${status.tokenWindow} tokens`} data-testid="status-model">
            model {status.model}
            {status.table.kind === 'adapted' ? ' (adapted to this vault)' : ''}
          </span>
          <span className="sep">·</span>
          <span title={status.faissUnavailable ? `faiss unavailable: ${status.faissUnavailable}` : undefined}>
            vectors {status.vectorBackend}
            {status.vectorKind === 'hnsw' ? ' (HNSW)' : ''}
          </span>
          {status.pendingRebuild && <span className="warning-text"> · rebuild pending: {status.pendingRebuild}</span>}
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
        {failed.length > 0 && (
          <button type="button" className="status-chip warning" onClick={onShowFailed} data-testid="failed-files-button">
            {plural(failed.length, 'file')} failed
          </button>
        )}
      </div>
    </footer>
  );
}
