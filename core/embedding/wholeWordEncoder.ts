/**
 * What transformers.js's BERT tokenizer gives a batch of texts (`{ padding: true, truncation: true }`) when its
 * vocabulary holds whole words only, as Cairn's static models' does: the same ids, attention mask and type ids,
 * made faster. The model that reads them is still the library's.
 *
 * Why: tokenising was some 85% of the bundled model's embedding time (0.44 ms of a 1,200-character passage, the ONNX
 * run 0.1 ms). The library's WordPiece step builds a string for every prefix of an unknown word, and its normaliser
 * builds the text a character at a time. With no continuation pieces in the vocabulary a word is its own id or
 * [UNK], so one lookup does; ASCII text (most of a technical vault) is normalised and split by one scan. Other text
 * goes a run between spaces at a time through the library's own normaliser and pre-tokenizer (its ASCII runs by the
 * scan), and a text holding an added token ("[SEP]") through the library's tokenizer entirely.
 *
 * `WholeWordEncoder.of` takes a tokenizer only when it is of that kind, and only when the encoder gives the library's
 * output on a set of probe texts; the property tests in test/whole-word-encoder.test.ts hold it to the library on
 * any text. Vault adaptation, which loads tokenizers.js rather than transformers.js, reads the same parts of that
 * library's tokenizer (`fromTokenizersJs`) for the ids alone.
 */
import { countsOneTokenPerBasicToken, type TokenizerShape } from './modelFolder.js';

/** A batch as transformers.js's tokenizer gives it: [texts, tokens] int64 tensors by input name. */
export type LibraryBatch = (texts: string[], options: { padding: true; truncation: true }) => Record<string, { data: ArrayLike<bigint>; dims: readonly number[] }>;

/**
 * The parts of a tokenizer read here, as transformers.js's `PreTrainedTokenizer` and tokenizers.js's `Tokenizer` keep
 * them (each part's config). transformers.js's is also called for batches; tokenizers.js's (`fromTokenizersJs`) is not.
 */
export interface LibraryTokenizer {
  /** A text's ids, special tokens included. */
  encode(text: string): number[];
  normalizer: (((text: string) => string) & { config?: Record<string, unknown> }) | null;
  pre_tokenizer: ((text: string) => string[]) | null;
  model: {
    config?: { type?: string; continuing_subword_prefix?: string };
    vocab?: readonly string[];
    tokens_to_ids: Map<string, number>;
    unk_token_id: number;
    max_input_chars_per_word: number;
    fuse_unk?: boolean;
  };
  added_tokens?: ReadonlyArray<{ content: string }>;
  model_max_length: number;
  pad_token_id: number;
  remove_space?: boolean;
  do_lowercase_and_remove_accent?: boolean;
}

/**
 * The loaded tokenizer's parts as its tokenizer.json named them. Read from the tokenizer the pipeline built, not from
 * the file: parsing a 100,000-word tokenizer.json a second time took 0.14 s of every start (the worker is ready
 * that much later, and on a small vault the first answer waits for it). transformers.js keeps each part's config,
 * except the pre-tokenizer's, whose class it chose by that config's type.
 */
export function shapeOf(tokenizer: LibraryTokenizer): TokenizerShape {
  const { normalizer, pre_tokenizer: preTokenizer, model, added_tokens: addedTokens } = tokenizer;
  return {
    normalizer: normalizer ? String(normalizer.config?.type ?? 'unknown') : undefined,
    preTokenizer: preTokenizer ? preTokenizer.constructor.name : undefined,
    model: model.config?.type,
    continuingSubwordPrefix: model.config?.continuing_subword_prefix,
    vocabulary: model.vocab,
    addedTokens: (addedTokens ?? []).map((t) => t.content),
  };
}

/** A batch as the model takes it: [texts, tokens] int64 tensors' data, row-major. */
export interface EncodedBatch {
  dims: [number, number];
  input_ids: BigInt64Array;
  attention_mask: BigInt64Array;
  token_type_ids?: BigInt64Array;
}

/** ASCII classes after BERT's normaliser: 0 dropped (a control character), 1 whitespace, 2 punctuation, 3 word. */
const ASCII_CLASS = Uint8Array.from({ length: 128 }, (_, code) => {
  if (code === 9 || code === 10 || code === 13 || code === 32) return 1;
  if (code < 32 || code === 127) return 0;
  return /[a-z0-9]/i.test(String.fromCharCode(code)) ? 3 : 2;
});
const NON_ASCII = /[^\x00-\x7f]/;
const CONTROL = /[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]/g;
/**
 * The characters BERT's normaliser makes spaces: JavaScript's whitespace less the control characters it drops first
 * (\v, \f, the byte-order mark).
 */
const SPACES = /[\t\n\r \u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+/;

/** Texts compared with the library when an encoder is made: what each branch of `ids` meets. */
const PROBES = [
  '',
  '   ',
  'Hello, World! snake_case and kebab-case: `code` (x=1) [[Link|alias]]',
  'tab\tline\nreturn\r\x01con\x7ftrol',
  'Café naïve résumé — “quoted” ’apostrophe’ 📅 2024-01-01 猫が好き ΟΔΟΣ\u00a0nbsp\u200bzero',
  'an [UNK] and a [SEP] inside',
  'x'.repeat(101),
];

export class WholeWordEncoder {
  private constructor(
    private readonly tokenizer: LibraryTokenizer,
    private readonly vocabulary: Map<string, number>,
    private readonly unk: number,
    private readonly cls: number,
    private readonly sep: number,
    private readonly maxLength: number,
    private readonly pad: number,
    private readonly addedTokens: readonly string[],
    private readonly typeIds: boolean,
    private readonly maxWordChars: number,
  ) {}

  /** An encoder for this tokenizer, or undefined when it is not a whole-word BERT tokenizer the encoder reproduces. */
  static of(tokenizer: LibraryTokenizer): WholeWordEncoder | undefined {
    if (!countsOneTokenPerBasicToken(shapeOf(tokenizer)) || !tokenizer.normalizer || !tokenizer.pre_tokenizer || tokenizer.model.fuse_unk || tokenizer.remove_space || tokenizer.do_lowercase_and_remove_accent) return undefined;
    const config = tokenizer.normalizer.config ?? {};
    // The ASCII scan does what this normaliser does: drops control characters, lower-cases, leaves no accent to strip.
    if (config.type !== 'BertNormalizer' || config.clean_text !== true || config.lowercase !== true || config.strip_accents === false) return undefined;
    const specials = tokenizer.encode('');
    const maxLength = Number(tokenizer.model_max_length);
    if (specials.length !== 2 || !(maxLength >= 2)) return undefined;
    const batch = typeof tokenizer === 'function' ? (tokenizer as LibraryTokenizer & LibraryBatch) : undefined;
    const probe = batch?.(['a'], { padding: true, truncation: true });
    const keys = probe && Object.keys(probe).sort().join();
    if (keys && keys !== 'attention_mask,input_ids' && keys !== 'attention_mask,input_ids,token_type_ids') return undefined;
    const encoder = new WholeWordEncoder(
      tokenizer,
      tokenizer.model.tokens_to_ids,
      tokenizer.model.unk_token_id,
      specials[0]!,
      specials[1]!,
      maxLength,
      tokenizer.pad_token_id,
      (tokenizer.added_tokens ?? []).map((t) => t.content).filter(Boolean),
      probe !== undefined && 'token_type_ids' in probe,
      tokenizer.model.max_input_chars_per_word,
    );
    const agrees = PROBES.every((text) => sameIds([encoder.cls, ...encoder.ids(text), encoder.sep], tokenizer.encode(text)));
    return agrees && (!batch || encoder.batchAgrees(batch, PROBES)) ? encoder : undefined;
  }

  /** The batch the library's tokenizer gives these texts, padded to the longest and cut at the model's length. */
  encode(texts: readonly string[]): EncodedBatch {
    const rows = texts.map((text) => {
      const ids = [this.cls, ...this.ids(text), this.sep];
      // As the library truncates: the first `maxLength` ids, [CLS] counted (a cut text loses its [SEP]).
      if (ids.length > this.maxLength) ids.length = this.maxLength;
      return ids;
    });
    const width = rows.reduce((longest, row) => Math.max(longest, row.length), 0);
    const size = rows.length * width;
    const batch: EncodedBatch = { dims: [rows.length, width], input_ids: new BigInt64Array(size), attention_mask: new BigInt64Array(size) };
    if (this.typeIds) batch.token_type_ids = new BigInt64Array(size);
    rows.forEach((row, r) => {
      const at = r * width;
      for (let t = 0; t < width; t++) {
        batch.input_ids[at + t] = BigInt(t < row.length ? row[t]! : this.pad);
        if (t < row.length) batch.attention_mask[at + t] = 1n;
      }
    });
    return batch;
  }

  /** A text's token ids, no special tokens, uncut. */
  ids(text: string): number[] {
    if (this.addedTokens.some((token) => text.includes(token))) return this.tokenizer.encode(text).slice(1, -1);
    const ids: number[] = [];
    if (!NON_ASCII.test(text)) this.asciiTokens(text, ids);
    else {
      // What the normaliser turns into spaces separates words, and nothing it does looks across a space (case, accents
      // and CJK are per character; final sigma looks at letters only): each run is normalised and split alone.
      for (const run of text.split(SPACES)) {
        if (!NON_ASCII.test(run)) this.asciiTokens(run, ids);
        else for (const word of this.tokenizer.pre_tokenizer!(this.tokenizer.normalizer!(run))) ids.push(this.idOf(word));
      }
    }
    return ids;
  }

  /** ASCII text normalised and split as the library does: control characters dropped, lower case, words and marks. */
  private asciiTokens(text: string, ids: number[]): void {
    const clean = text.replace(CONTROL, '').toLowerCase();
    let start = -1;
    for (let i = 0; i <= clean.length; i++) {
      const kind = i < clean.length ? ASCII_CLASS[clean.charCodeAt(i)]! : 1;
      if (kind === 3) {
        if (start < 0) start = i;
        continue;
      }
      if (start >= 0) {
        ids.push(this.idOf(clean.slice(start, i)));
        start = -1;
      }
      if (kind === 2) ids.push(this.idOf(clean[i]!));
    }
  }

  /**
   * The word's id, or [UNK]: with no continuation pieces WordPiece finds a whole word or nothing (and takes no word
   * longer than its limit, counted in code points).
   */
  private idOf(word: string): number {
    if (word.length > this.maxWordChars && [...word].length > this.maxWordChars) return this.unk;
    return this.vocabulary.get(word) ?? this.unk;
  }

  /** Whether these texts, as one batch, get exactly the library's tensors. */
  private batchAgrees(batch: LibraryBatch, texts: readonly string[]): boolean {
    const expected = batch([...texts], { padding: true, truncation: true });
    const actual = this.encode(texts);
    return Object.entries(expected).every(([key, tensor]) => {
      const mine = actual[key as 'input_ids' | 'attention_mask' | 'token_type_ids'];
      return mine !== undefined && tensor.dims.join() === actual.dims.join() && sameIds(mine, tensor.data);
    });
  }
}

function sameIds(a: ArrayLike<number | bigint>, b: ArrayLike<number | bigint>): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (BigInt(a[i]!) !== BigInt(b[i]!)) return false;
  return true;
}

/** A tokenizers.js `Tokenizer` as `WholeWordEncoder.of` reads it: the same parts, `encode` giving ids. */
export function fromTokenizersJs(tokenizer: { encode(text: string): { ids: number[] } }): LibraryTokenizer {
  const parts = tokenizer as unknown as Omit<LibraryTokenizer, 'encode' | 'model_max_length' | 'pad_token_id'> & {
    config: { model_max_length?: number; pad_token?: string };
  };
  return {
    ...parts,
    encode: (text) => tokenizer.encode(text).ids,
    // tokenizers.js keeps tokenizer_config.json as it was read.
    model_max_length: Number(parts.config.model_max_length),
    pad_token_id: parts.model.tokens_to_ids.get(parts.config.pad_token ?? '') ?? 0,
  };
}
