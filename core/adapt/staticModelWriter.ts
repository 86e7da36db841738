/**
 * Writes a "static embedding" model in the folder layout that transformers.js
 * loads for any BERT-style hub model:
 *
 *   <dir>/config.json
 *   <dir>/tokenizer.json            (WordPiece, BertNormalizer, BertPreTokenizer, [CLS] $A [SEP])
 *   <dir>/tokenizer_config.json
 *   <dir>/onnx/model.onnx           (fp32 table,  loaded with dtype 'fp32')
 *   <dir>/onnx/model_quantized.onnx (int8 table, loaded with dtype 'q8')
 *
 * The ONNX graph takes the usual BERT inputs (input_ids, attention_mask,
 * token_type_ids: int64 [batch, seq]) and returns
 * last_hidden_state = table[input_ids] (float [batch, seq, hidden]).
 * attention_mask and token_type_ids are declared but unused: transformers.js
 * feeds every declared input, and the feature-extraction pipeline's mean
 * pooling applies the attention mask itself.
 *
 * So `pipeline('feature-extraction', id)` with `{ pooling: 'mean', normalize: true }`
 * returns the normalised average of the token rows, i.e. a (weighted) bag of
 * word vectors when the caller has pre-scaled each row by its weight.
 *
 * Special tokens ([PAD] [UNK] [CLS] [SEP] [MASK]) are zero rows so they do not
 * move the direction of the mean. With `emptyTextAxis` (the default) one extra
 * hidden dimension is appended that is zero for every word and a tiny epsilon
 * for [CLS]: a text with no known word (or an empty text) then embeds to the
 * unit vector on that axis instead of 0/0 = NaN, and its cosine with any text
 * that has at least one known word is ~0.
 *
 * Used by the model build scripts and by vault adaptation (adaptStaticModel.ts),
 * which writes an adapted table in the same layout at run time (hence `onnx-proto`
 * is a runtime dependency).
 */
import { mkdir, writeFile, stat, rm } from 'node:fs/promises';
import path from 'node:path';
import onnxProto from 'onnx-proto';

const { onnx } = onnxProto;

export const SPECIAL_TOKENS = ['[PAD]', '[UNK]', '[CLS]', '[SEP]', '[MASK]'] as const;

export type Variant = 'fp32' | 'q8';

export interface BertEmbeddingModelSpec {
  /** Token strings; the index is the token id. Must contain each of SPECIAL_TOKENS once. */
  vocab: string[];
  /** Row-major table, vocab.length x dims. Special-token rows are ignored (written as zeros). */
  embeddings: Float32Array;
  /** Width of each row of `embeddings`. */
  dims: number;
}

export interface WriteOptions {
  /** Which ONNX files to write. Default: both. */
  variants?: Variant[];
  /** Append the empty-text axis described above. Default true. */
  emptyTextAxis?: boolean;
  /** Value of [CLS] on the empty-text axis. Default 1e-5 (negligible next to any word row). */
  emptyTextEpsilon?: number;
  /** model_max_length / max_position_embeddings. Default 512. */
  maxLength?: number;
  /**
   * dtype written to config.json "transformers.js_config", used when the caller
   * passes no dtype. Default: 'q8' if only the q8 file is written, else 'fp32'.
   */
  defaultDtype?: Variant;
  /** Free-form description stored in config.json under "cairn". */
  description?: string;
  /** Extra JSON stored in config.json under "cairn". */
  metadata?: Record<string, unknown>;
}

export interface WrittenFile {
  path: string;
  bytes: number;
}

export interface WriteResult {
  hiddenSize: number;
  vocabSize: number;
  files: WrittenFile[];
}

function assertSpec(spec: BertEmbeddingModelSpec): Map<string, number> {
  const { vocab, embeddings, dims } = spec;
  if (!Number.isInteger(dims) || dims <= 0) throw new Error(`dims must be a positive integer, got ${dims}`);
  if (embeddings.length !== vocab.length * dims) {
    throw new Error(`embeddings has ${embeddings.length} values, expected vocab ${vocab.length} x dims ${dims}`);
  }
  const ids = new Map<string, number>();
  vocab.forEach((tok, i) => {
    if (typeof tok !== 'string' || tok.length === 0) throw new Error(`empty token at id ${i}`);
    if (ids.has(tok)) throw new Error(`duplicate token ${JSON.stringify(tok)} at ids ${ids.get(tok)} and ${i}`);
    ids.set(tok, i);
  });
  for (const s of SPECIAL_TOKENS) if (!ids.has(s)) throw new Error(`vocab lacks special token ${s}`);
  for (let i = 0; i < embeddings.length; i++) {
    if (!Number.isFinite(embeddings[i])) throw new Error(`non-finite embedding value at row ${Math.floor(i / dims)}`);
  }
  return ids;
}

/** Builds the final [vocab, hidden] table: specials zeroed, optional empty-text axis appended. */
function finalTable(spec: BertEmbeddingModelSpec, ids: Map<string, number>, emptyTextAxis: boolean, eps: number) {
  const { vocab, embeddings, dims } = spec;
  const hidden = dims + (emptyTextAxis ? 1 : 0);
  const table = new Float32Array(vocab.length * hidden);
  for (let r = 0; r < vocab.length; r++) {
    table.set(embeddings.subarray(r * dims, (r + 1) * dims), r * hidden);
  }
  for (const s of SPECIAL_TOKENS) table.fill(0, ids.get(s)! * hidden, (ids.get(s)! + 1) * hidden);
  if (emptyTextAxis) table[ids.get('[CLS]')! * hidden + dims] = eps;
  return { table, hidden };
}

/** Symmetric per-row int8 quantisation: row ≈ q * scale, q in [-127, 127]. */
export function quantizeRows(table: Float32Array, rows: number, hidden: number) {
  const q = new Int8Array(rows * hidden);
  const scales = new Float32Array(rows);
  for (let r = 0; r < rows; r++) {
    let maxAbs = 0;
    for (let k = 0; k < hidden; k++) maxAbs = Math.max(maxAbs, Math.abs(table[r * hidden + k]));
    const scale = maxAbs / 127;
    scales[r] = scale;
    if (scale === 0) continue;
    for (let k = 0; k < hidden; k++) {
      q[r * hidden + k] = Math.max(-127, Math.min(127, Math.round(table[r * hidden + k] / scale)));
    }
  }
  return { q, scales };
}

const DT = onnx.TensorProto.DataType;

function bytesOf(a: Float32Array | Int8Array): Uint8Array {
  // ONNX raw_data is little-endian; so are all platforms Node supports in practice.
  return new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
}

function tensor(name: string, dims: number[], dataType: number, data: Float32Array | Int8Array) {
  return onnx.TensorProto.create({ name, dims, dataType, rawData: bytesOf(data) });
}

function valueInfo(name: string, elemType: number, dims: (string | number)[]) {
  return onnx.ValueInfoProto.create({
    name,
    type: {
      tensorType: {
        elemType,
        shape: { dim: dims.map((d) => (typeof d === 'string' ? { dimParam: d } : { dimValue: d })) },
      },
    },
  });
}

function intAttr(name: string, i: number) {
  return onnx.AttributeProto.create({ name, type: onnx.AttributeProto.AttributeType.INT, i });
}

function encodeModel(variant: Variant, table: Float32Array, rows: number, hidden: number, docString: string): Uint8Array {
  const inputs = ['input_ids', 'attention_mask', 'token_type_ids'].map((n) =>
    valueInfo(n, DT.INT64, ['batch_size', 'sequence_length']),
  );
  const output = valueInfo('last_hidden_state', DT.FLOAT, ['batch_size', 'sequence_length', hidden]);
  let nodes: ReturnType<typeof onnx.NodeProto.create>[];
  let initializers: ReturnType<typeof onnx.TensorProto.create>[];
  if (variant === 'fp32') {
    initializers = [tensor('embeddings', [rows, hidden], DT.FLOAT, table)];
    nodes = [
      onnx.NodeProto.create({
        name: 'lookup',
        opType: 'Gather',
        input: ['embeddings', 'input_ids'],
        output: ['last_hidden_state'],
        attribute: [intAttr('axis', 0)],
      }),
    ];
  } else {
    // Gather the int8 rows and their scales first, then dequantise only the
    // gathered rows (Cast + Mul): no full-table float copy per call.
    const { q, scales } = quantizeRows(table, rows, hidden);
    initializers = [
      tensor('embeddings_q', [rows, hidden], DT.INT8, q),
      tensor('embeddings_scale', [rows, 1], DT.FLOAT, scales),
    ];
    nodes = [
      onnx.NodeProto.create({
        name: 'lookup_q', opType: 'Gather', input: ['embeddings_q', 'input_ids'], output: ['rows_q'],
        attribute: [intAttr('axis', 0)],
      }),
      onnx.NodeProto.create({
        name: 'lookup_scale', opType: 'Gather', input: ['embeddings_scale', 'input_ids'], output: ['rows_scale'],
        attribute: [intAttr('axis', 0)],
      }),
      onnx.NodeProto.create({
        name: 'to_float', opType: 'Cast', input: ['rows_q'], output: ['rows_f'], attribute: [intAttr('to', DT.FLOAT)],
      }),
      onnx.NodeProto.create({
        name: 'dequantize', opType: 'Mul', input: ['rows_f', 'rows_scale'], output: ['last_hidden_state'],
      }),
    ];
  }
  const model = onnx.ModelProto.create({
    irVersion: 8,
    opsetImport: [{ domain: '', version: 13 }],
    producerName: 'cairn-onnx-bert-writer',
    producerVersion: '1',
    docString,
    graph: {
      name: `static_embedding_${variant}`,
      node: nodes,
      initializer: initializers,
      input: inputs,
      output: [output],
    },
  });
  return onnx.ModelProto.encode(model).finish();
}

function tokenizerJson(vocab: string[], ids: Map<string, number>) {
  const special = (tok: string) => ({ id: ids.get(tok)!, content: tok, single_word: false, lstrip: false, rstrip: false, normalized: false, special: true });
  const vocabObj: Record<string, number> = {};
  vocab.forEach((t, i) => (vocabObj[t] = i));
  const cls = { SpecialToken: { id: '[CLS]', type_id: 0 } };
  const sep0 = { SpecialToken: { id: '[SEP]', type_id: 0 } };
  const sep1 = { SpecialToken: { id: '[SEP]', type_id: 1 } };
  return {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: SPECIAL_TOKENS.map(special).sort((a, b) => a.id - b.id),
    normalizer: { type: 'BertNormalizer', clean_text: true, handle_chinese_chars: true, strip_accents: null, lowercase: true },
    pre_tokenizer: { type: 'BertPreTokenizer' },
    post_processor: {
      type: 'TemplateProcessing',
      single: [cls, { Sequence: { id: 'A', type_id: 0 } }, sep0],
      pair: [cls, { Sequence: { id: 'A', type_id: 0 } }, sep0, { Sequence: { id: 'B', type_id: 1 } }, sep1],
      special_tokens: Object.fromEntries(
        ['[CLS]', '[SEP]'].map((t) => [t, { id: t, ids: [ids.get(t)!], tokens: [t] }]),
      ),
    },
    decoder: { type: 'WordPiece', prefix: '##', cleanup: true },
    model: {
      type: 'WordPiece',
      unk_token: '[UNK]',
      continuing_subword_prefix: '##',
      max_input_chars_per_word: 100,
      vocab: vocabObj,
    },
  };
}

/**
 * Writes the model folder. Existing files of the same names are replaced; an
 * ONNX variant that is not requested is removed so the folder never mixes
 * tables from different builds.
 */
export async function writeBertEmbeddingModel(
  dir: string,
  spec: BertEmbeddingModelSpec,
  options: WriteOptions = {},
): Promise<WriteResult> {
  const ids = assertSpec(spec);
  const variants = options.variants ?? ['fp32', 'q8'];
  if (variants.length === 0) throw new Error('no ONNX variant requested');
  const emptyTextAxis = options.emptyTextAxis ?? true;
  const eps = options.emptyTextEpsilon ?? 1e-5;
  const maxLength = options.maxLength ?? 512;
  const defaultDtype = options.defaultDtype ?? (variants.includes('fp32') ? 'fp32' : 'q8');
  if (!variants.includes(defaultDtype)) throw new Error(`defaultDtype ${defaultDtype} is not among the written variants`);

  const { table, hidden } = finalTable(spec, ids, emptyTextAxis, eps);
  const rows = spec.vocab.length;

  await mkdir(path.join(dir, 'onnx'), { recursive: true });
  const written: string[] = [];
  const put = async (rel: string, data: string | Uint8Array) => {
    await writeFile(path.join(dir, rel), data);
    written.push(rel);
  };

  const config = {
    architectures: ['BertModel'],
    model_type: 'bert',
    vocab_size: rows,
    hidden_size: hidden,
    max_position_embeddings: maxLength,
    type_vocab_size: 2,
    pad_token_id: ids.get('[PAD]'),
    // No transformer layers: the ONNX graph is a plain table lookup.
    num_hidden_layers: 0,
    num_attention_heads: 1,
    intermediate_size: 0,
    hidden_act: 'gelu',
    layer_norm_eps: 1e-12,
    'transformers.js_config': { dtype: defaultDtype },
    cairn: {
      kind: 'static-word-embeddings',
      description: options.description ?? 'Static word-embedding table exported as a BERT-shaped ONNX model.',
      word_dims: spec.dims,
      empty_text_axis: emptyTextAxis ? { index: spec.dims, cls_value: eps } : null,
      ...options.metadata,
    },
  };
  await put('config.json', JSON.stringify(config, null, 2) + '\n');
  await put('tokenizer.json', JSON.stringify(tokenizerJson(spec.vocab, ids)));
  const tokenizerConfig = {
    tokenizer_class: 'BertTokenizer',
    do_lower_case: true,
    strip_accents: null,
    tokenize_chinese_chars: true,
    model_max_length: maxLength,
    clean_up_tokenization_spaces: true,
    pad_token: '[PAD]',
    unk_token: '[UNK]',
    cls_token: '[CLS]',
    sep_token: '[SEP]',
    mask_token: '[MASK]',
  };
  await put('tokenizer_config.json', JSON.stringify(tokenizerConfig, null, 2) + '\n');

  const doc = `Static embedding lookup: vocab ${rows}, hidden ${hidden}.`;
  const fileOf: Record<Variant, string> = { fp32: 'onnx/model.onnx', q8: 'onnx/model_quantized.onnx' };
  for (const v of ['fp32', 'q8'] as const) {
    if (variants.includes(v)) await put(fileOf[v], encodeModel(v, table, rows, hidden, doc));
    else await rm(path.join(dir, fileOf[v]), { force: true });
  }

  const files: WrittenFile[] = [];
  for (const rel of written) files.push({ path: rel, bytes: (await stat(path.join(dir, rel))).size });
  return { hiddenSize: hidden, vocabSize: rows, files };
}
