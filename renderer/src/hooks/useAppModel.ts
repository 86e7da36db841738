// The app's view of the core: AppState plus what the event stream says between states (indexing progress, rebuild
// reason, failed files, config problems), and a revision number that moves whenever the index content changes, so
// that open searches and notes refresh themselves without a reload.
import { useCallback, useEffect, useReducer } from 'react';
import { vaultFolderMessage, type AppEvent, type AppState, type ConfigProblem, type FileStatus, type IndexEvent } from '../../../core/contract/appApi.ts';
import type { UiEvent } from '../api/desktopApi.ts';
import { useApi } from '../api/ApiContext.tsx';
import { NO_ETA, nextEta, type EtaState } from '../indexing/progressText.ts';
import { useToasts } from './toasts.tsx';

type Progress = Extract<IndexEvent, { type: 'progress' }>;
type Summary = Extract<IndexEvent, { type: 'indexing-finished' }>['summary'];

export interface AppModel {
  state: AppState | null;
  progress: Progress | null;
  /** The time left, smoothed over the progress reports (see indexing/progressText.ts). */
  eta: EtaState;
  rebuilding: string | null;
  /** Learning the vault's vocabulary: the latest progress, or null. */
  adapting: AppState['adapting'];
  failedFiles: FileStatus[];
  configProblem: ConfigProblem | null;
  lastSummary: Summary | null;
  /** Moves when notes were (re)indexed or changed. */
  revision: number;
  /** The last note that changed on disk. */
  changedNote: { path: string; change: 'added' | 'changed' | 'removed'; revision: number } | null;
  /** Moves when an indexing run finished. */
  indexRevision: number;
  /** Moves when the core applied or rejected a config.toml. */
  configRevision: number;
  /** Moves when the desktop menu asks to focus the search box. */
  focusRequest: number;
}

const initial: AppModel = { state: null, progress: null, eta: NO_ETA, rebuilding: null, adapting: null, failedFiles: [], configProblem: null, lastSummary: null, revision: 0, changedNote: null, indexRevision: 0, configRevision: 0, focusRequest: 0 };

function reduce(model: AppModel, event: UiEvent): AppModel {
  switch (event.type) {
    case 'state': {
      const { state } = event;
      const vaultChanged = state.vault !== model.state?.vault;
      return {
        ...model,
        state,
        progress: state.indexing,
        eta: state.indexing ? model.eta : NO_ETA,
        rebuilding: state.rebuilding,
        adapting: state.adapting,
        failedFiles: state.failedFiles,
        configProblem: state.configProblem,
        revision: vaultChanged || countsChanged(model.state, state) ? model.revision + 1 : model.revision,
      };
    }
    case 'rebuild-started':
      return { ...model, rebuilding: event.reason };
    case 'indexing-started':
      return { ...model, progress: { type: 'progress', phase: 'scan', done: 0, total: event.files }, eta: NO_ETA };
    case 'progress':
      return { ...model, progress: event, eta: event.phase === 'persist' ? model.eta : nextEta(model.eta, event.etaSeconds, event.done, event.total, Date.now()) };
    case 'file-failed':
      return { ...model, failedFiles: [...model.failedFiles.filter((f) => f.path !== event.path), { path: event.path, state: event.indexed ? 'indexed' : 'failed', reason: event.reason }] };
    case 'indexing-finished':
      return { ...model, progress: null, eta: NO_ETA, rebuilding: null, lastSummary: event.summary, revision: model.revision + 1, indexRevision: model.indexRevision + 1 };
    case 'note-changed':
      return { ...model, revision: model.revision + 1, changedNote: { path: event.path, change: event.change, revision: model.revision + 1 } };
    case 'config-applied':
      return { ...model, configProblem: null, configRevision: model.configRevision + 1 };
    case 'config-rejected':
      return { ...model, configProblem: event.problem, configRevision: model.configRevision + 1 };
    case 'adapt-progress':
      return { ...model, adapting: { phase: event.phase, done: event.done, total: event.total } };
    case 'adapt-finished':
      return { ...model, adapting: null };
    case 'focus-search':
      return { ...model, focusRequest: model.focusRequest + 1 };
    case 'error':
    case 'vault-folder':
    // Answers stream to the ask panel, which listens for its own request; model downloads to the model picker.
    case 'answer-token':
    case 'model-download':
      return model;
  }
}

function countsChanged(before: AppState | null, after: AppState): boolean {
  return before?.status?.notes !== after.status?.notes || before?.status?.chunks !== after.status?.chunks;
}

/** How a rejected config.toml's toast starts. */
const CONFIG_REJECTED = 'config.toml was not applied: ';

export function useAppModel(): { model: AppModel; applyState(state: AppState): void } {
  const { api } = useApi();
  const { notify, reportError, dismissStartingWith } = useToasts();
  const [model, dispatch] = useReducer(reduce, initial);

  useEffect(() => {
    let live = true;
    const unsubscribe = api.subscribe((event: AppEvent) => {
      if (!live) return;
      dispatch(event);
      if (event.type === 'error') notify('error', event.message);
      else if (event.type === 'vault-folder') {
        // Told once it is gone, until it is back.
        dismissStartingWith(vaultFolderMessage(event.path, false));
        notify(event.present ? 'info' : 'error', vaultFolderMessage(event.path, event.present));
      }
      else if (event.type === 'config-rejected') {
        // Only the file's current problems are shown: an older rejection is replaced, and goes once the file is fixed.
        dismissStartingWith(CONFIG_REJECTED);
        notify('error', `${CONFIG_REJECTED}${describeProblem(event.problem)}`);
      } else if (event.type === 'adapt-finished' && event.adapted) {
        notify('info', "Learned this vault's vocabulary; re-embedding the notes with it (searches keep working).");
      } else if (event.type === 'config-applied') {
        dismissStartingWith(CONFIG_REJECTED);
        notify('info', event.rebuild ? `Settings applied; rebuilding the index (${event.rebuild}).` : 'Settings applied.');
      } else if (event.type === 'indexing-finished') {
        // Counts, model and the like change with indexing: fetch the state that goes with the new index.
        void api.getState().then((state) => live && dispatch({ type: 'state', state }), () => {});
      }
    });
    api.getState().then(
      (state) => live && dispatch({ type: 'state', state }),
      (error: unknown) => reportError('Could not load the app state', error),
    );
    return () => {
      live = false;
      unsubscribe();
    };
  }, [api, notify, reportError, dismissStartingWith]);

  const applyState = useCallback((state: AppState) => dispatch({ type: 'state', state }), []);
  return { model, applyState };
}

/** Every problem of a rejected config, one line each (the toast lists the lines after the first). */
export function describeProblem(problem: ConfigProblem): string {
  return (problem.problems ?? [problem])
    .map(({ key, message, line, column }) => `${key ? `${key}: ` : ''}${message}${line ? ` (line ${line}${column ? `, column ${column}` : ''})` : ''}`)
    .join('\n');
}
