// The window's size and place, remembered across runs (a JSON file in the user-data folder). Bounds that no longer
// fit any screen (a monitor was unplugged) are dropped rather than restored off-screen.
import { readFileSync, writeFileSync } from 'node:fs';

export interface Bounds {
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface WindowState {
  bounds?: Bounds;
  maximized?: boolean;
}

const MIN_VISIBLE = 100;

export function loadWindowState(file: string): WindowState {
  try {
    const saved = JSON.parse(readFileSync(file, 'utf8')) as WindowState;
    const b = saved.bounds;
    const valid = b && [b.x, b.y, b.width, b.height].every(Number.isFinite);
    return { bounds: valid ? b : undefined, maximized: saved.maximized === true };
  } catch {
    return {};
  }
}

export function saveWindowState(file: string, state: WindowState): void {
  try {
    writeFileSync(file, JSON.stringify(state, null, 2));
  } catch {
    // Not remembering the window's place is no reason to fail closing it.
  }
}

/** `bounds` if at least a corner of it (MIN_VISIBLE px square) lies on one of the screens' work areas. */
export function onScreen(bounds: Bounds | undefined, workAreas: readonly Bounds[]): Bounds | undefined {
  if (!bounds) return undefined;
  const visible = workAreas.some((area) => {
    const width = Math.min(bounds.x + bounds.width, area.x + area.width) - Math.max(bounds.x, area.x);
    const height = Math.min(bounds.y + bounds.height, area.y + area.height) - Math.max(bounds.y, area.y);
    return width >= MIN_VISIBLE && height >= MIN_VISIBLE;
  });
  return visible ? bounds : undefined;
}
