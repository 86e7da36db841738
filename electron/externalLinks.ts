// Which URLs leave the app: the desktop main process hands only these to the OS (shell.openExternal), and the
// note view makes only these clickable. This module imports nothing so the renderer can share the one rule.
// Anything a note could use to make the OS do more than open a page, write a mail or show a note (mailto's
// `attach`, Obsidian's plugin URIs, file:, custom schemes) is refused.

/** mailto: header fields a link may fill in (RFC 6068 names, compared case-insensitively). */
const MAIL_FIELDS: ReadonlySet<string> = new Set(['subject', 'body', 'cc', 'bcc']);
/** Address fields: every value must be addresses. */
const MAIL_ADDRESS_FIELDS: ReadonlySet<string> = new Set(['cc', 'bcc']);
/** obsidian://open parameters: which vault, and which note by vault path or file path. */
const OBSIDIAN_OPEN_FIELDS: ReadonlySet<string> = new Set(['vault', 'file', 'path']);
/** One address, without display names or comments: local@domain. */
const MAIL_ADDRESS = /^[^\s@,;:<>()[\]"\\]+@[^\s@,;:<>()[\]"\\]+$/;

export function isAllowedExternalUrl(url: string): boolean {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return false;
  }
  switch (parsed.protocol) {
    case 'http:':
    case 'https:':
      return parsed.hostname !== '';
    case 'mailto:':
      return isAllowedMailto(parsed);
    case 'obsidian:':
      return isAllowedObsidianOpen(parsed);
    default:
      return false;
  }
}

function isAllowedMailto(url: URL): boolean {
  if (url.hash || !isAddressList(decoded(url.pathname))) return false;
  for (const [name, value] of url.searchParams) {
    const field = name.toLowerCase();
    if (!MAIL_FIELDS.has(field)) return false;
    if (MAIL_ADDRESS_FIELDS.has(field) && !isAddressList(value)) return false;
  }
  return true;
}

function isAllowedObsidianOpen(url: URL): boolean {
  if (url.host !== 'open' || url.username || url.password || (url.pathname !== '' && url.pathname !== '/') || url.hash) return false;
  let fields = 0;
  for (const [name, value] of url.searchParams) {
    if (!OBSIDIAN_OPEN_FIELDS.has(name) || value === '') return false;
    fields++;
  }
  return fields > 0;
}

/** One or more comma-separated addresses (`mailto:a@x.org,b@y.org`). */
function isAddressList(text: string | undefined): boolean {
  return !!text && text.split(',').every((address) => MAIL_ADDRESS.test(address.trim()));
}

function decoded(text: string): string | undefined {
  try {
    return decodeURIComponent(text);
  } catch {
    return undefined;
  }
}
