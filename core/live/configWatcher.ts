// Following config.toml: a change (an editor's atomic rename-over save included) is reported once it has settled.
import { watch } from 'chokidar';

/** Calls `onChange` after each settled change of `file`; the result closes the watch. */
export function watchConfigFile(file: string, onChange: () => void): { close(): Promise<void> } {
  const watcher = watch(file, { ignoreInitial: true, atomic: true, awaitWriteFinish: { stabilityThreshold: 50, pollInterval: 25 } });
  watcher.on('all', onChange);
  return watcher;
}
