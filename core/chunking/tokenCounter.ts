/** Counts the tokens an embedding model sees in a text, and knows how many it reads at most. */
export interface TokenCounter {
  count(text: string): number;
  /** The most tokens of text the model embeds, its special tokens ([CLS], [SEP]) already subtracted. */
  readonly window: number;
}

// BERT's basic tokenisation: runs of letters/digits form a word, every punctuation mark and every CJK ideograph
// is a token of its own. For a whole-word vocabulary this is the exact token count; for word-piece vocabularies
// it is a lower bound, which is why models with a tokenizer count with the tokenizer itself.
const BASIC_TOKEN = /\p{Ideographic}|[[\p{L}\p{M}\p{N}]--\p{Ideographic}]+|[^\s\p{L}\p{M}\p{N}]/gv;

export class BasicTokenCounter implements TokenCounter {
  constructor(readonly window: number) {}

  count(text: string): number {
    let n = 0;
    BASIC_TOKEN.lastIndex = 0;
    while (BASIC_TOKEN.exec(text) !== null) n++;
    return n;
  }
}
