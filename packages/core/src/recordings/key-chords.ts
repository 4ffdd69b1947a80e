/*
 * A `press` step's key is a Playwright key or chord (`Enter`, `a`, `Shift+A`); a recording has
 * keyDown and keyUp steps instead. Modifiers held while another key goes down make a chord.
 */

const MODIFIERS = new Set(['Shift', 'Control', 'Alt', 'Meta', 'ControlOrMeta']);

export function isModifierKey(key: string): boolean {
  return MODIFIERS.has(key);
}

/** `Shift+A` -> ['Shift', 'A']; `Control++` -> ['Control', '+']; `+` -> ['+']. */
export function chordKeys(chord: string): string[] {
  if (chord === '+' || !chord.includes('+')) return [chord];
  if (chord.endsWith('++')) return [...chord.slice(0, -2).split('+'), '+'];
  return chord.split('+');
}
