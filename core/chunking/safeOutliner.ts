import { MarkdownOutliner, type MarkdownOutline } from '../parse/markdownTree.js';
import { MAX_NESTING, nestingDepth, plainOutline } from './plainOutline.js';

/** An outline, and why it is a plain-text one when tree-sitter was not used or failed. */
export interface CheckedOutline {
  outline: MarkdownOutline;
  warning?: string;
}

/** What a chunker outlines notes with: `SafeOutliner`, or `ReusingOutliner` around it (cached outlines). */
export interface Outliner {
  outline(text: string, bodyStart: number): CheckedOutline;
}

/**
 * Outlines notes with tree-sitter when that is safe, else as plain text (see `plainOutline`): notes nested deeper
 * than tree-sitter-markdown can hold are never given to it, and a parse that throws is answered with the plain
 * outline and a fresh parser for the next note. One note never stops the others.
 */
export class SafeOutliner implements Outliner {
  /** Parses that threw so far: the chunk worker replaces its thread after one. */
  faults = 0;
  /** When set, the next notes are outlined as plain text for this reason (a note that crashed a worker before). */
  plainReason?: string;

  private constructor(
    private outliner: MarkdownOutliner,
    private readonly maxNesting: number,
  ) {}

  /** `maxNesting` other than the default only in tests, to reach a parser fault on purpose. */
  static async create(maxNesting = MAX_NESTING): Promise<SafeOutliner> {
    return new SafeOutliner(await MarkdownOutliner.create(), maxNesting);
  }

  outline(text: string, bodyStart: number): CheckedOutline {
    if (this.plainReason) return { outline: plainOutline(text, bodyStart), warning: this.plainReason };
    const depth = nestingDepth(text, bodyStart);
    if (depth > this.maxNesting) {
      return { outline: plainOutline(text, bodyStart), warning: `lists or quotes nested ${depth} levels deep (more than ${this.maxNesting}): indexed as plain text` };
    }
    try {
      return { outline: this.outliner.outline(text, bodyStart) };
    } catch (error) {
      this.faults++;
      this.outliner = this.outliner.renew();
      return { outline: plainOutline(text, bodyStart), warning: `the Markdown parser failed on it (${(error as Error).message}): indexed as plain text` };
    }
  }
}
