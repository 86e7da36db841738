// What a link points at: the target, heading, block and alias written inside a wikilink, or in a Markdown link's
// destination (percent-decoded; URLs and same-page fragments are not links into the vault).

const URL_SCHEME = /^[A-Za-z][A-Za-z0-9+.-]{1,31}:/;

export interface LinkParts {
  target: string;
  heading?: string;
  blockId?: string;
  alias?: string;
}

/** The parts of the text between `[[` and `]]`: target, heading or block, alias after `|`. */
export function parseWikilinkInner(inner: string): LinkParts | undefined {
  const pipe = inner.indexOf('|');
  let linkPart = pipe < 0 ? inner : inner.slice(0, pipe);
  // Inside table rows the separator is written "\|".
  if (pipe > 0 && linkPart.endsWith('\\')) linkPart = linkPart.slice(0, -1);
  const alias = pipe < 0 ? '' : inner.slice(pipe + 1).trim();
  const parts = splitFragment(linkPart.trim(), linkPart.indexOf('#'));
  if (!parts) return undefined;
  return alias !== '' ? { ...parts, alias } : parts;
}

/** Splits "target#Heading", "target#^block" and "target#Heading#^block" at the first "#". */
function splitFragment(link: string, hash: number): LinkParts | undefined {
  const target = (hash < 0 ? link : link.slice(0, hash)).trim();
  const fragment = hash < 0 ? '' : link.slice(hash + 1).trim();
  const parts: LinkParts = { target };
  const blockMarker = fragment.startsWith('^') ? 0 : fragment.indexOf('#^');
  if (blockMarker >= 0) {
    const heading = fragment.slice(0, blockMarker).trim();
    const blockId = fragment.slice(blockMarker + (blockMarker === 0 ? 1 : 2)).trim();
    if (heading !== '') parts.heading = heading;
    if (blockId !== '') parts.blockId = blockId;
  } else if (fragment !== '') {
    parts.heading = fragment;
  }
  if (target === '' && parts.heading === undefined && parts.blockId === undefined) return undefined;
  return parts;
}

/** A Markdown destination pointing into the vault, or undefined for URLs and same-page fragments. */
export function localLink(destination: string): LinkParts | undefined {
  const dest = destination.trim();
  if (dest === '' || dest.startsWith('#') || dest.startsWith('//') || URL_SCHEME.test(dest)) return undefined;
  const hash = dest.indexOf('#');
  const path = percentDecode(hash < 0 ? dest : dest.slice(0, hash)).trim();
  if (path === '') return undefined;
  const fragment = hash < 0 ? '' : percentDecode(dest.slice(hash + 1));
  return splitFragment(fragment === '' ? path : `${path}#${fragment}`, fragment === '' ? -1 : path.length);
}

function percentDecode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    // A stray "%" (e.g. "100%.md") is not an escape; keep the text as written.
    return value;
  }
}
