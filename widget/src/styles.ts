/** The widget's CSS, scoped by its Shadow DOM. Every text reads at WCAG AA (4.5:1) in both
 * themes, checked in the browser tests; colours made from the accent are worked out here. */

import { onAccent, parseHex, readableOn, toHex, type RGB } from "./contrast";

const DEFAULT_ACCENT = "#2e8555";
const LIGHT = { bg: "#ffffff", fg: "#1c1e21", bubble: "#f3f4f6" };
const DARK = { bg: "#1b1b1d", fg: "#e3e3e3", bubble: "#2a2b2e" };

/** Any CSS colour as RGB, through the browser's own parser (a canvas normalises it to #rrggbb). */
function rgbOf(color: string): RGB {
  const context = typeof document !== "undefined" ? document.createElement("canvas").getContext("2d") : null;
  if (context) context.fillStyle = color;
  return parseHex(color) ?? (context ? parseHex(context.fillStyle as string) : null) ?? parseHex(DEFAULT_ACCENT)!;
}

export function styles(accent: string): string {
  const base = rgbOf(accent);
  const backgrounds = (theme: typeof LIGHT) => [parseHex(theme.bg)!, parseHex(theme.bubble)!];
  const link = { light: toHex(readableOn(base, backgrounds(LIGHT), "black")), dark: toHex(readableOn(base, backgrounds(DARK), "white")) };
  const filled = onAccent(base, parseHex(LIGHT.fg)!);
  return `
:host { all: initial; }
[hidden] { display: none !important; }
svg { width: 20px; height: 20px; fill: currentColor; vertical-align: middle; }
.launcher svg { width: 26px; height: 26px; }
.root { --accent: ${toHex(base)}; --accent-fill: ${toHex(filled.background)}; --on-accent: ${toHex(filled.text)};
  --link: ${link.light}; --bg: ${LIGHT.bg}; --fg: ${LIGHT.fg}; --muted: #5f6368; --border: #d0d7de;
  --bubble: ${LIGHT.bubble}; --danger: #b42318; --success: #1a7f37; --warning: #8a5d00;
  --error-bg: #fdecea; --error-fg: #8a1c12; --focus: 0 0 0 3px color-mix(in srgb, var(--accent) 45%, transparent);
  font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--fg); }
.root[data-theme="dark"] { --link: ${link.dark}; --bg: ${DARK.bg}; --fg: ${DARK.fg}; --muted: #a8abb0; --border: #3a3d41;
  --bubble: ${DARK.bubble}; --danger: #ff9b8f; --success: #56d364; --warning: #e3b341; --error-bg: #3d1d1a; --error-fg: #ffb4ab; }
button { font: inherit; cursor: pointer; min-height: 44px; min-width: 44px; border-radius: 8px; }
button:focus-visible, textarea:focus-visible, a:focus-visible { outline: none; box-shadow: var(--focus); }
.launcher { position: fixed; bottom: 20px; z-index: 2147483000; width: 56px; height: 56px; border-radius: 50%;
  border: 0; background: var(--accent-fill); color: var(--on-accent); box-shadow: 0 4px 14px rgba(0,0,0,.25); font-size: 24px; }
.root[data-position="right"] .launcher, .root[data-position="right"] .panel { right: 20px; }
.root[data-position="left"] .launcher, .root[data-position="left"] .panel { left: 20px; }
.panel { position: fixed; bottom: 88px; z-index: 2147483001; width: min(400px, calc(100vw - 40px));
  height: min(600px, calc(100vh - 120px)); display: flex; flex-direction: column; background: var(--bg);
  color: var(--fg); border: 1px solid var(--border); border-radius: 14px; box-shadow: 0 12px 40px rgba(0,0,0,.25); overflow: hidden; }
header { display: flex; align-items: center; gap: 4px; padding: 6px 8px 6px 14px; border-bottom: 1px solid var(--border); }
header h2 { flex: 1; margin: 0; font-size: 16px; }
.mode { width: auto; height: auto; font: inherit; font-size: 13px; padding: 3px 10px; border: 1px solid var(--border); border-radius: 999px; background: none; color: var(--fg); cursor: pointer; }
.search { flex: 1; display: flex; flex-direction: column; min-height: 0; padding: 10px; gap: 8px; }
.search input { font: inherit; padding: 8px 10px; border: 1px solid var(--border); border-radius: 8px; background: var(--bg); color: var(--fg); }
.results { list-style: none; margin: 0; padding: 0; overflow-y: auto; }
.results li { border-radius: 8px; }
.results li[aria-selected="true"], .results li:hover { background: var(--bubble); }
.results a { display: block; padding: 8px; color: inherit; text-decoration: none; }
.results strong { display: block; font-size: 13px; color: var(--link); }
.results mark { background: color-mix(in srgb, var(--accent) 25%, transparent); color: inherit; }
.results .empty { padding: 8px; color: var(--muted); }
.icon { background: transparent; border: 0; color: var(--fg); }
.messages { flex: 1; overflow-y: auto; padding: 12px; display: flex; flex-direction: column; gap: 12px; }
.msg { max-width: 92%; padding: 8px 12px; border-radius: 12px; background: var(--bubble); overflow-wrap: anywhere; }
.msg.user { align-self: flex-end; background: var(--accent-fill); color: var(--on-accent); }
.msg.error { background: var(--error-bg); color: var(--error-fg); }
.msg p { margin: 0 0 8px; } .msg p:last-child { margin-bottom: 0; }
.msg pre { overflow-x: auto; background: rgba(0,0,0,.06); padding: 8px; border-radius: 6px; }
.msg a { color: inherit; }
.quote { border-left: 3px solid currentColor; padding-left: 8px; margin-bottom: 6px; opacity: .9; font-size: 13px; }
.citations { margin: 8px 0 0; padding: 0; list-style: none; font-size: 13px; }
.citations li { margin-top: 4px; }
.citations a { color: var(--link); }
.meta { display: flex; align-items: center; gap: 4px; margin-top: 6px; flex-wrap: wrap; }
.badge { font-size: 12px; padding: 2px 8px; border-radius: 999px; border: 1px solid var(--border); color: var(--muted); }
.badge.high { color: var(--success); border-color: var(--success); } .badge.needs_review { color: var(--warning); border-color: var(--warning); }
.meta button { background: transparent; border: 1px solid transparent; color: var(--muted); }
.meta button[aria-pressed="true"] { border-color: var(--link); color: var(--link); }
.typing { align-self: flex-start; color: var(--muted); font-size: 13px; }
.starters { display: flex; flex-direction: column; gap: 6px; }
.starters button { text-align: left; background: transparent; border: 1px solid var(--border); color: var(--fg); padding: 8px 12px; }
.ask { border-top: 1px solid var(--border); padding: 8px; display: flex; flex-direction: column; gap: 6px; }
.comment { display: flex; flex-direction: column; gap: 6px; margin-top: 8px; font-size: 13px; }
.comment textarea { min-height: 66px; }
.comment .row { justify-content: flex-end; }
.secondary { background: transparent; border: 1px solid var(--border); color: var(--fg); padding: 0 14px; }
.comment-error { color: var(--danger); }
.thanks { margin-top: 6px; font-size: 13px; color: var(--muted); }
.pending-quote { display: flex; gap: 6px; align-items: flex-start; font-size: 13px; color: var(--muted); }
.pending-quote q { flex: 1; max-height: 60px; overflow: hidden; }
.row { display: flex; gap: 6px; align-items: flex-end; }
textarea { flex: 1; resize: none; min-height: 44px; max-height: 120px; padding: 10px; border-radius: 8px;
  border: 1px solid var(--border); background: var(--bg); color: var(--fg); font: inherit; }
.send { background: var(--accent-fill); color: var(--on-accent); border: 0; padding: 0 14px; }
.send:disabled { opacity: .5; cursor: not-allowed; }
.counter { font-size: 12px; color: var(--muted); text-align: right; }
.counter.over { color: var(--danger); }
.tooltip { position: fixed; z-index: 2147483002; background: var(--accent-fill); color: var(--on-accent); border: 0; padding: 0 12px;
  box-shadow: 0 2px 8px rgba(0,0,0,.25); }
.sr-only { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
@media (max-width: 600px) {
  .panel { inset: 0 !important; width: 100vw; height: 100vh; border-radius: 0; border: 0; }
}
`;
}
