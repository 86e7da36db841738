// Which URLs the desktop app hands to the OS (shell.openExternal): web and mail links, and Obsidian's own
// "open this note" links. Everything else a page might try to open goes nowhere.
export function isAllowedExternalUrl(url: string): boolean {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return false;
  }
  if (parsed.protocol === 'http:' || parsed.protocol === 'https:') return parsed.hostname !== '';
  if (parsed.protocol === 'mailto:') return true;
  return parsed.protocol === 'obsidian:' && parsed.host === 'open';
}
