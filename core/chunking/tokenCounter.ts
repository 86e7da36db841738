import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { Tokenizer } from '@huggingface/tokenizers';

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

/** BASIC_TOKEN's classes for ASCII characters: 0 whitespace, 1 word (letter or digit), 2 a token of its own. */
const ASCII_CLASS = Uint8Array.from({ length: 128 }, (_, code) => {
  const char = String.fromCharCode(code);
  return /\s/.test(char) ? 0 : /[\p{L}\p{M}\p{N}]/u.test(char) ? 1 : 2;
});

export class BasicTokenCounter implements TokenCounter {
  constructor(readonly window: number) {}

  /**
   * BASIC_TOKEN's matches, counted: ASCII text by a scan over character classes, the rest by the expression itself
   * from the start of the word the first other character is in. Chunking counts every piece it weighs, and the
   * expression alone (a match object per token) was a quarter of a re-chunk's chunking time.
   */
  count(text: string): number {
    let n = 0;
    let inWord = false;
    for (let i = 0; i < text.length; i++) {
      const code = text.charCodeAt(i);
      if (code >= 128) return n - (inWord ? 1 : 0) + countFrom(text, wordStart(text, i));
      const kind = ASCII_CLASS[code];
      if (kind === 1) {
        if (!inWord) n++;
        inWord = true;
      } else {
        inWord = false;
        if (kind === 2) n++;
      }
    }
    return n;
  }
}

/** Where the ASCII word that ends just before `at` starts (`at` itself when there is none). */
function wordStart(text: string, at: number): number {
  let start = at;
  while (start > 0 && ASCII_CLASS[text.charCodeAt(start - 1)] === 1) start--;
  return start;
}

function countFrom(text: string, start: number): number {
  let n = 0;
  BASIC_TOKEN.lastIndex = start;
  // test, not exec: no match object per token.
  while (BASIC_TOKEN.test(text)) n++;
  return n;
}

/**
 * Counts with a model's own tokenizer (`tokenizer.json` + `tokenizer_config.json`), for vocabularies with sub-word
 * pieces, where the basic count is only a lower bound. Built with tokenizers.js (the tokenizers of transformers.js
 * without its ONNX runtime), so a chunk worker thread can build the same counter: onnxruntime-node, which importing
 * transformers.js loads, cannot be loaded by two threads of one process.
 */
export class ModelTokenCounter implements TokenCounter {
  private constructor(
    readonly window: number,
    /** The model folder the counter was read from: what a worker thread needs to build the same one. */
    readonly tokenizerDir: string,
    private readonly tokenizer: Tokenizer,
  ) {}

  static async load(tokenizerDir: string, window: number): Promise<ModelTokenCounter> {
    const read = async (name: string) => JSON.parse(await readFile(path.join(tokenizerDir, name), 'utf8')) as object;
    const [tokenizerJson, config] = await Promise.all([read('tokenizer.json'), read('tokenizer_config.json').catch(() => ({}))]);
    return new ModelTokenCounter(window, tokenizerDir, new Tokenizer(tokenizerJson, config));
  }

  count(text: string): number {
    return this.tokenizer.encode(text, { add_special_tokens: false }).ids.length;
  }
}
