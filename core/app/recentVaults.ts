// The vaults opened lately, newest first, remembered in a JSON file (the vault picker lists them).
import { readFile, writeFile } from 'node:fs/promises';

const RECENT_LIMIT = 10;

export class RecentVaults {
  private vaults: string[] = [];

  /** `stateFile`: where they are remembered; without one, only for this run. */
  constructor(private readonly stateFile: string | undefined) {}

  get list(): string[] {
    return this.vaults;
  }

  async load(): Promise<void> {
    if (!this.stateFile) return;
    try {
      const saved = JSON.parse(await readFile(this.stateFile, 'utf8')) as { recentVaults?: unknown };
      if (Array.isArray(saved.recentVaults)) this.vaults = saved.recentVaults.filter((v): v is string => typeof v === 'string');
    } catch {
      // No state yet, or unreadable: start without recent vaults.
    }
  }

  async remember(vaultPath: string): Promise<void> {
    this.vaults = [vaultPath, ...this.vaults.filter((v) => v !== vaultPath)].slice(0, RECENT_LIMIT);
    if (this.stateFile) await writeFile(this.stateFile, JSON.stringify({ recentVaults: this.vaults }, null, 2)).catch(() => {});
  }
}
