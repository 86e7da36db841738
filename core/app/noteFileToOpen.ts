// "Open in editor" on the desktop: which file to hand to the OS for a note of the open vault. The shell that asks
// (Electron's main process) holds only a CairnApi; the opening itself is the shell's.
import type { CairnApi } from '../contract/appApi.js';
import { resolveInVault } from '../vault/vaultPaths.js';

/** The note's real file: it must be a note the index knows, within the vault's boundary. */
export async function noteFileToOpen(api: CairnApi, notePath: string): Promise<string> {
  const { vault } = await api.getState();
  if (!vault) throw new Error('no vault is open');
  await api.getNote(notePath); // throws unless the index knows the note
  // The core's own rule, so what the app shows and what it opens never differ.
  const followOutside = (await api.getConfig()).options.some((o) => o.section === 'vault' && o.key === 'follow_outside_links' && o.value === true);
  return resolveInVault(vault, notePath, { followOutside });
}
