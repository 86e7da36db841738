import cliProgress from 'cli-progress';
import type { IndexEvent, IndexListener, IndexPhase, IndexSummary } from '../core/api.js';

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
    `${summary.embedded} chunk texts embedded, ${summary.cached} from the cache`,
    `${summary.seconds.toFixed(1)} s (${phases})`,
  ].join('\n');
}
