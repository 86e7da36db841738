import cliProgress from 'cli-progress';
import type { AdaptProgress, IndexEvent, IndexListener, IndexPhase, IndexSummary } from '../core/app/index.js';

const PHASE_LABEL: Record<IndexPhase, string> = { scan: 'scanning', chunk: 'chunking', embed: 'embedding', index: 'indexing', persist: 'saving' };

/**
 * Shows indexing progress on stderr: a bar with counts and ETA on a terminal, a line per phase otherwise
 * (so logs stay readable). Returns the listener and a function that ends the display.
 */
export function progressReporter(quiet = false): { listener: IndexListener; stop: () => void } {
  if (quiet) return { listener: () => {}, stop: () => {} };
  const tty = process.stderr.isTTY;
  const bar = tty
    ? new cliProgress.SingleBar(
        { stream: process.stderr, format: ' {phase} |{bar}| {value}/{total} {file} | ETA {eta_formatted}', hideCursor: true, clearOnComplete: true, etaBuffer: 50 },
        cliProgress.Presets.shades_classic,
      )
    : undefined;
  let phase: IndexPhase | undefined;
  let barStarted = false;
  const listener = (event: IndexEvent) => {
    switch (event.type) {
      case 'rebuild-started':
        process.stderr.write(`cairn: rebuilding the index: ${event.reason}\n`);
        break;
      case 'file-failed':
        process.stderr.write(`cairn: warning: ${event.path}: ${event.reason}\n`);
        break;
      case 'progress':
        if (bar) {
          // One bar over the notes of the run; the label says what is happening to them.
          const payload = { phase: PHASE_LABEL[event.phase].padEnd(9), file: event.currentFile ? shorten(event.currentFile) : '' };
          if (event.phase === 'persist') {
            if (barStarted) bar.update(bar.getTotal(), payload);
          } else if (!barStarted) {
            bar.start(event.total, event.done, payload);
            barStarted = true;
          } else {
            bar.setTotal(event.total);
            bar.update(event.done, payload);
          }
        } else if (phase !== event.phase && event.total > 0) {
          process.stderr.write(`cairn: ${PHASE_LABEL[event.phase]} (${event.phase === 'persist' ? 'index files' : `${event.done}/${event.total} notes`})\n`);
        }
        phase = event.phase;
        break;
      case 'indexing-finished':
        bar?.stop();
        break;
      default:
        break;
    }
  };
  return { listener, stop: () => bar?.stop() };
}

function shorten(file: string): string {
  return file.length > 40 ? `…${file.slice(-39)}` : file;
}

export function describeSummary(summary: IndexSummary): string {
  const phases = Object.entries(summary.phaseSeconds)
    .map(([phase, seconds]) => `${phase} ${seconds.toFixed(1)}s`)
    .join(', ');
  return [
    `${summary.notes} notes, ${summary.chunks} chunks`,
    `${summary.changedNotes} notes (re)indexed, ${summary.removedNotes} removed, ${summary.failed} failed`,
    `${summary.embedded} chunk texts embedded, ${summary.cached} from the cache; ${summary.indexed} chunks indexed anew, the others kept their entries`,
    `${summary.seconds.toFixed(1)} s (${phases})`,
  ].join('\n');
}

const ADAPT_LABEL: Record<AdaptProgress['phase'], string> = { mining: 'collecting pairs', training: 'training', writing: 'saving the table' };

/** Progress of learning the vault's vocabulary on stderr: a bar of training steps on a terminal, a line per phase otherwise. */
export function adaptProgressReporter(quiet = false): { listener: (p: AdaptProgress) => void; stop: () => void } {
  if (quiet) return { listener: () => {}, stop: () => {} };
  process.stderr.write("cairn: learning this vault's vocabulary (adapting the embedding table)\n");
  const bar = process.stderr.isTTY
    ? new cliProgress.SingleBar({ stream: process.stderr, format: ' {phase} |{bar}| {value}/{total} | ETA {eta_formatted}', hideCursor: true, clearOnComplete: true }, cliProgress.Presets.shades_classic)
    : undefined;
  let phase: AdaptProgress['phase'] | undefined;
  const listener = (p: AdaptProgress) => {
    const payload = { phase: ADAPT_LABEL[p.phase].padEnd(16) };
    if (bar) {
      if (phase !== p.phase) bar.start(Math.max(1, p.total), p.done, payload);
      else bar.update(p.done, payload);
    } else if (phase !== p.phase) process.stderr.write(`cairn: ${ADAPT_LABEL[p.phase]}${p.total > 1 ? ` (${p.total}${p.phase === 'training' ? ' steps' : ''})` : ''}\n`);
    phase = p.phase;
  };
  return { listener, stop: () => bar?.stop() };
}
