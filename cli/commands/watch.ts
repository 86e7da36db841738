import type { Command } from 'commander';
import { vaultFolderMessage, type AppEvent } from '../../core/contract/appApi.js';
import { CairnService, configProblemLines } from '../../core/app/index.js';
import { configFileOf, withCommonOptions, type CommonOptions } from '../options.js';
import { progressReporter } from '../progress.js';

export function registerWatchCommand(program: Command): void {
  withCommonOptions(program.command('watch').description('index the vault, then keep the index live: one line per applied change'), { json: false }).action(
    async (options: CommonOptions) => {
      const configFile = configFileOf(options);
      const progress = progressReporter();
      const stamp = () => new Date().toLocaleTimeString();
      let watching = false;
      let rebuilding = false;
      const onEvent = (event: AppEvent) => {
        switch (event.type) {
          case 'note-changed':
            process.stdout.write(`${stamp()}  ${event.change.padEnd(7)} ${event.path}\n`);
            break;
          case 'file-failed':
            process.stdout.write(`${stamp()}  ${event.indexed ? 'warning' : 'failed '} ${event.path}: ${event.reason}\n`);
            break;
          case 'config-applied':
            process.stdout.write(`${stamp()}  config applied${event.rebuild ? `; rebuilding (${event.rebuild})` : ''}\n`);
            break;
          case 'config-rejected':
            process.stdout.write(`${stamp()}  config rejected, the last good config stays:\n${configProblemLines(event.problem).map((line) => `  ${line}\n`).join('')}`);
            break;
          case 'vault-folder':
            process.stdout.write(`${stamp()}  ${event.present ? 'back   ' : 'gone   '} ${vaultFolderMessage(event.path, event.present)}\n`);
            break;
          case 'error':
            process.stdout.write(`${stamp()}  error   ${event.message}\n`);
            break;
          case 'indexing-finished':
            if (event.summary.changedNotes || event.summary.removedNotes) {
              process.stdout.write(`${stamp()}  indexed ${event.summary.notes} notes, ${event.summary.chunks} chunks (${event.summary.embedded} embedded, ${event.summary.seconds.toFixed(2)} s)\n`);
            }
            break;
          default:
            break;
        }
        // The progress display is for the first index and rebuilds; single changes get their one line above.
        const indexEvent = event.type === 'progress' || event.type === 'rebuild-started' || event.type === 'indexing-started' || event.type === 'indexing-finished' || event.type === 'file-failed';
        if (indexEvent && (!watching || rebuilding)) progress.listener(event);
        if (event.type === 'rebuild-started') rebuilding = true;
        if (event.type === 'indexing-finished') rebuilding = false;
      };
      const service = await CairnService.start({ configFile, vault: options.vault, dataDir: options.dataDir, listener: onEvent });
      const state = await service.getState();
      watching = true;
      process.stdout.write(`${stamp()}  watching ${state.vault} (${state.status?.notes ?? 0} notes, ${state.status?.chunks ?? 0} chunks); Ctrl-C to stop\n`);
      if (state.configProblem) onEvent({ type: 'config-rejected', problem: state.configProblem });
      await new Promise<void>((resolve) => {
        process.once('SIGINT', resolve);
        process.once('SIGTERM', resolve);
      });
      progress.stop();
      await service.close();
    },
  );
}
