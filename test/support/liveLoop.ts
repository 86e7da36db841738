import type { AppEvent } from '../../core/contract/appApi.js';
import type { CairnVault } from '../../core/app/index.js';
import { LiveIndex } from '../../core/live/liveIndex.js';

/** The live loop of one open vault, as the app runs it, recording what it tells the host: its events and each save's problem (undefined when it succeeded). */
export function liveLoopOf(vault: CairnVault, events: AppEvent[], saves: Array<string | undefined> = []): LiveIndex<CairnVault> {
  return new LiveIndex<CairnVault>({
    vault: () => vault,
    closed: () => false,
    onIndexEvent: () => {},
    emit: (event) => events.push(event),
    indexChanged: async () => {},
    saved: (problem) => saves.push(problem),
  });
}
