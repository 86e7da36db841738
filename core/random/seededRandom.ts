/**
 * mulberry32: a small seeded generator of floats in [0, 1), the same sequence for the same seed on every machine.
 * Everything in Cairn that must replay from a seed (evaluation copies, model training, test data, the fault suite)
 * draws from it.
 */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = Math.imul(state ^ (state >>> 15), state | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
