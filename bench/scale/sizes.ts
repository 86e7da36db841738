// Vault sizes as the scale benchmark names them: "50k", "200k", "1m" chunks.

export function parseSize(text: string): number {
  const match = /^(\d+(?:\.\d+)?)([km]?)$/i.exec(text.trim());
  if (!match) throw new Error(`not a size: "${text}" (e.g. 50k, 200k, 1m)`);
  return Math.round(Number(match[1]) * (match[2].toLowerCase() === 'k' ? 1e3 : match[2].toLowerCase() === 'm' ? 1e6 : 1));
}

export function sizeLabel(chunks: number): string {
  return chunks >= 1e6 && chunks % 1e5 === 0 ? `${chunks / 1e6}m` : chunks >= 1e3 && chunks % 1e3 === 0 ? `${chunks / 1e3}k` : String(chunks);
}
