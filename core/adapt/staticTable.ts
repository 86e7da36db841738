/**
 * Reads a static embedding model folder (the layout staticModelWriter.ts writes) back into Float32 rows: the q8
 * table dequantised (int8 x per-row scale), without the empty-text axis (the writer appends it again), plus the
 * vocabulary in id order. What training starts from.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import onnxProto from 'onnx-proto';

export interface StaticTable {
  /** Token strings; the index is the token id. */
  vocab: string[];
  /** Row-major word table, vocab.length x dims (the empty-text axis left out). */
  rows: Float32Array;
  /** config.json cairn.word_dims: the width of `rows`. */
  dims: number;
  /** config.json hidden_size: dims plus the empty-text axis, when the model has one. */
  hidden: number;
}

export const Q8_ONNX_FILE = path.join('onnx', 'model_quantized.onnx');

export async function readStaticTable(modelDir: string): Promise<StaticTable> {
  const tok = JSON.parse(await readFile(path.join(modelDir, 'tokenizer.json'), 'utf8')) as { model: { vocab: Record<string, number> } };
  const vocab: string[] = [];
  for (const [t, id] of Object.entries(tok.model.vocab)) vocab[id] = t;
  const config = JSON.parse(await readFile(path.join(modelDir, 'config.json'), 'utf8')) as { hidden_size: number; cairn?: { kind?: string; word_dims?: number } };
  if (config.cairn?.kind !== 'static-word-embeddings' || !config.cairn.word_dims) {
    throw new Error(`${modelDir}: not a static word-embedding model (config.json has no cairn.kind "static-word-embeddings")`);
  }
  const model = onnxProto.onnx.ModelProto.decode(await readFile(path.join(modelDir, Q8_ONNX_FILE)));
  const init = (name: string) => {
    const t = model.graph?.initializer?.find((x) => x.name === name);
    if (!t?.rawData) throw new Error(`${modelDir}/${Q8_ONNX_FILE}: no initializer ${name}`);
    return t.rawData;
  };
  const qRaw = init('embeddings_q');
  const sRaw = init('embeddings_scale');
  const q = new Int8Array(qRaw.buffer, qRaw.byteOffset, qRaw.byteLength);
  // Copied: the raw bytes of a decoded protobuf need not be 4-byte aligned.
  const scales = new Float32Array(Uint8Array.from(sRaw).buffer);
  const hidden = config.hidden_size;
  const dims = config.cairn.word_dims;
  if (q.length !== vocab.length * hidden || scales.length !== vocab.length) {
    throw new Error(`${modelDir}: table has ${q.length} values and ${scales.length} scales, expected ${vocab.length} x ${hidden}`);
  }
  const rows = new Float32Array(vocab.length * dims);
  for (let r = 0; r < vocab.length; r++) for (let k = 0; k < dims; k++) rows[r * dims + k] = q[r * hidden + k] * scales[r];
  return { vocab, rows, dims, hidden };
}
