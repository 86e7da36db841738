import type { MarkdownOutline } from '../parse/markdownTree.js';
import { decodeOutline, encodeOutline } from './outlineCodec.js';
import type { CheckedOutline, Outliner, SafeOutliner } from './safeOutliner.js';

/**
 * Outlines a note from its cached outline when it is given one (no parse: a `[chunking]` change only re-packs
 * sections), else through the `SafeOutliner`, keeping what tree-sitter parsed, encoded, for the cache. A plain-text
 * outline (a note too deep or that faulted the parser) is not kept: it is cheap, or not to be trusted, to make again.
 * Set `cached` before each note; read `parsed` after it.
 */
export class ReusingOutliner implements Outliner {
  /** The next note's encoded outline, from the cache. */
  cached?: string;
  private fresh?: MarkdownOutline;

  constructor(readonly safe: SafeOutliner) {}

  /** The last note's outline as tree-sitter parsed it, encoded; undefined when it was reused or plain. */
  get parsed(): string | undefined {
    return this.fresh && encodeOutline(this.fresh);
  }

  outline(text: string, bodyStart: number): CheckedOutline {
    const cached = this.cached;
    this.cached = undefined;
    this.fresh = undefined;
    const reused = cached === undefined || this.safe.plainReason ? undefined : decodeOutline(cached, text.length);
    if (reused) return { outline: reused };
    const checked = this.safe.outline(text, bodyStart);
    if (!checked.warning) this.fresh = checked.outline;
    return checked;
  }
}
