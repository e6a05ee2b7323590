/** The keyboard shortcut that opens the widget: "mod+i" (⌘I on Apple systems, Ctrl+I elsewhere,
 * as Algolia's and Mintlify's assistants), set by data-shortcut / the `shortcut` option, "off" for none. */

export interface Shortcut {
  key: string; // lower case, one character
  ctrl: boolean;
  meta: boolean;
  alt: boolean;
  shift: boolean;
}

export const DEFAULT_SHORTCUT = "mod+i";
const OFF = new Set(["", "off", "none", "false"]);
const MODIFIERS: Record<string, keyof Omit<Shortcut, "key"> | "mod"> = {
  mod: "mod", ctrl: "ctrl", control: "ctrl", cmd: "meta", command: "meta", meta: "meta",
  alt: "alt", option: "alt", shift: "shift",
};

export function isApple(platform: string): boolean {
  return /Mac|iPhone|iPad|iPod/i.test(platform);
}

/** The shortcut a spec like "mod+i", "ctrl+shift+k" or "alt+/" names; null for "off".
 * Throws on a spec it cannot read, so a typo is reported instead of silently ignored. */
export function parseShortcut(spec: string, apple: boolean): Shortcut | null {
  const text = spec.trim().toLowerCase();
  if (OFF.has(text)) return null;
  const parts = text.split("+");
  const key = parts.pop() || (text.endsWith("+") ? "+" : "");
  const shortcut: Shortcut = { key, ctrl: false, meta: false, alt: false, shift: false };
  for (const part of parts.filter(Boolean)) {
    const modifier = MODIFIERS[part.trim()];
    if (!modifier) throw new Error(`unknown modifier "${part}" in shortcut "${spec}"`);
    shortcut[modifier === "mod" ? (apple ? "meta" : "ctrl") : modifier] = true;
  }
  if ([...key].length !== 1) throw new Error(`shortcut "${spec}" must end with one key, as in "mod+i"`);
  if (!shortcut.ctrl && !shortcut.meta && !shortcut.alt) {
    throw new Error(`shortcut "${spec}" needs ctrl, cmd, alt or mod, or it would take a key readers type`);
  }
  return shortcut;
}

export function matches(event: KeyboardEvent, shortcut: Shortcut): boolean {
  if (event.ctrlKey !== shortcut.ctrl || event.metaKey !== shortcut.meta || event.altKey !== shortcut.alt) return false;
  const letter = /^[a-z]$/.test(shortcut.key);
  if (letter && event.shiftKey !== shortcut.shift) return false; // a symbol may need Shift on some layouts
  // The physical key too: Alt changes the character on a Mac (⌥I types "ˆ"), and so does a non-Latin layout.
  return event.key.toLowerCase() === shortcut.key || (letter && event.code === `Key${shortcut.key.toUpperCase()}`);
}

/** As readers see it: "⌘I" on Apple systems, "Ctrl+I" elsewhere. */
export function shortcutLabel(shortcut: Shortcut, apple: boolean): string {
  const key = shortcut.key.toUpperCase();
  if (apple) {
    return `${shortcut.ctrl ? "⌃" : ""}${shortcut.alt ? "⌥" : ""}${shortcut.shift ? "⇧" : ""}${shortcut.meta ? "⌘" : ""}${key}`;
  }
  const names = [shortcut.ctrl && "Ctrl", shortcut.alt && "Alt", shortcut.shift && "Shift", shortcut.meta && "Meta"];
  return [...names.filter(Boolean), key].join("+");
}

/** The aria-keyshortcuts value: "Control+I", "Meta+Shift+K". */
export function ariaShortcut(shortcut: Shortcut): string {
  const names = [shortcut.ctrl && "Control", shortcut.meta && "Meta", shortcut.alt && "Alt", shortcut.shift && "Shift"];
  return [...names.filter(Boolean), shortcut.key.toUpperCase()].join("+");
}

/** A field of the host page where the keys are the reader's own (a rich editor's Ctrl+I is italic). */
export function isEditable(target: EventTarget | null): boolean {
  return target instanceof HTMLElement && (target.isContentEditable || target.matches("input, textarea, select"));
}
