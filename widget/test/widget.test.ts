import assert from "node:assert/strict";
import { test } from "node:test";

import { friendlyError } from "../src/api";
import { AA, contrast, onAccent, parseHex, readableOn, toHex, type RGB } from "../src/contrast";
import { escapeHtml, renderMarkdown, safeUrl } from "../src/markdown";
import { citationHref, citationLabel } from "../src/selection";
import { ariaShortcut, isApple, matches, parseShortcut, shortcutLabel } from "../src/shortcut";
import { SSEParser } from "../src/sse";
import { History, PREFIX, TTL_MS, type Message } from "../src/storage";

test("SSE events survive being split anywhere", () => {
  const stream = 'event: text\ndata: {"delta": "Hel"}\n\n: ping\r\n\r\nevent: done\r\ndata: {"a":1}\r\ndata: {"b":2}\r\n\r\n';
  for (let cut = 0; cut <= stream.length; cut++) {
    const parser = new SSEParser();
    const events = [...parser.feed(stream.slice(0, cut)), ...parser.feed(stream.slice(cut))];
    assert.deepEqual(events, [
      { event: "text", data: '{"delta": "Hel"}' },
      { event: "done", data: '{"a":1}\n{"b":2}' },
    ], `cut at ${cut}`);
  }
});

test("markdown escapes every HTML payload", () => {
  const payloads = ['<img src=x onerror=alert(1)>', "<script>alert(1)</script>", '"><svg onload=alert(1)>'];
  for (const payload of payloads) {
    const html = renderMarkdown(`Look: ${payload} and **${payload}**`);
    assert.ok(!html.includes("<img") && !html.includes("<script") && !html.includes("<svg"), html);
  }
  assert.equal(escapeHtml(`<a href="x">'`), "&lt;a href=&quot;x&quot;&gt;&#39;");
});

test("markdown drops javascript: and data: links but keeps web links", () => {
  assert.equal(safeUrl("javascript:alert(1)"), null);
  assert.equal(safeUrl(" JaVaScRiPt:alert(1)"), null);
  assert.equal(safeUrl("data:text/html,x"), null);
  for (const elsewhere of ["//evil.example", "/\\evil.example", "/\t/evil.example", " //evil.example"]) {
    assert.equal(safeUrl(elsewhere), null, elsewhere);  // browsers read these as another host
  }
  for (const here of ["/docs/a#s", "#top", "./page.html", "../up.html", "https://docs.example.com/x"]) {
    assert.equal(safeUrl(here), here);
  }
  const html = renderMarkdown("[click](javascript:alert(1)) and [docs](https://example.com/a?b=1&c=2)");
  assert.ok(!html.includes("javascript:"), html);
  assert.ok(html.includes('href="https://example.com/a?b=1&amp;c=2"'), html);
});

test("markdown formats lists, code and citation markers", () => {
  const html = renderMarkdown("Intro **bold** and `a<b>` [1].\n\n- one\n- two\n\n```\nx < 1\n```", (n) => (n === 1 ? "/docs/a#s" : null));
  assert.ok(html.includes("<strong>bold</strong>"));
  assert.ok(html.includes("<code>a&lt;b&gt;</code>"));
  assert.ok(html.includes('<sup><a class="cite" href="/docs/a#s"'));
  assert.ok(html.includes("<ul><li>one</li><li>two</li></ul>"));
  assert.ok(html.includes("<pre><code>x &lt; 1</code></pre>"));
});

test("citation links carry a text fragment that highlights the whole passage", () => {
  assert.equal(
    citationHref("https://b.example/docs/a#key-ideas", "Nodes are independent processes, each with one job in the robot."),
    "https://b.example/docs/a#key-ideas:~:text=Nodes%20are%20independent%20processes%2C%20each,one%20job%20in%20the%20robot.",
  );
  assert.equal(citationHref("/docs/a", "A short, whole sentence."), "/docs/a#:~:text=A%20short%2C%20whole%20sentence.");
  assert.equal(  // cut at EXCERPT_CHARS: up to where the excerpt stops
    citationHref("/docs/a", "One two three four five six seven eight nine ten eleven twelve…"),
    "/docs/a#:~:text=One%20two%20three%20four%20five,eight%20nine%20ten%20eleven%20twelve",
  );
  assert.equal(  // as the page shows it: code spans and emphasis without their marks
    citationHref("/docs/a", "URDF uses `<link>` and **joints**."),
    "/docs/a#:~:text=URDF%20uses%20%3Clink%3E%20and%20joints.",
  );
  assert.equal(citationHref("/docs/a", "Well-known"), "/docs/a#:~:text=Well%2Dknown");
  assert.equal(citationHref("/docs/a#x", ""), "/docs/a#x");
});

test("a PDF citation opens the viewer link as the server made it, and names its page", () => {
  const viewer = "https://api.example/books/b/files/manual.pdf?page=12&highlight=Flood%20is%20covered";
  assert.equal(citationHref(viewer, "Flood is covered", 12), viewer);
  assert.equal(citationHref(viewer, "Flood is covered", 12, "9.ab"), `${viewer}&reader_token=9.ab`);
  assert.equal(
    citationLabel({ module: "Policy", lesson: "Coverage", section: "Flood", page: 12 }),
    "Policy · Coverage · p. 12 · Flood",
  );
  assert.equal(citationLabel({ module: "", lesson: "Policy", section: "", page: 3 }), "Policy · p. 3");
});

test("error messages are friendly", () => {
  assert.match(friendlyError(429, undefined, "42"), /in 42 seconds/);
  assert.equal(friendlyError(400, "query: too long", null), "query: too long");
  assert.match(friendlyError(0, undefined, null), /offline/);
  assert.match(friendlyError(503, undefined, null), /temporarily unavailable/);
});

class MemoryStorage implements Storage {
  private items = new Map<string, string>();
  constructor(private readonly capacity = Infinity) {}
  get length() { return this.items.size; }
  clear() { this.items.clear(); }
  getItem(key: string) { return this.items.get(key) ?? null; }
  key(index: number) { return [...this.items.keys()][index] ?? null; }
  removeItem(key: string) { this.items.delete(key); }
  setItem(key: string, value: string) {
    const used = [...this.items.entries()].filter(([k]) => k !== key).reduce((n, [k, v]) => n + k.length + v.length, 0);
    if (used + key.length + value.length > this.capacity) throw new Error("QuotaExceededError");
    this.items.set(key, value);
  }
}

const hello: Message[] = [{ role: "user", content: "hello" }];

test("history expires after seven days", () => {
  const store = new MemoryStorage();
  let now = 1_000_000;
  new History(store, () => now).save("a", hello);
  assert.deepEqual(new History(store, () => now + 1000).load("a"), hello);
  now += TTL_MS + 1;
  const later = new History(store, () => now);
  assert.deepEqual(later.load("a"), []);
  assert.equal(store.getItem(PREFIX + "a"), null); // pruned on start
});

test("a full storage evicts the oldest conversations first", () => {
  const store = new MemoryStorage(400);
  let now = 0;
  const history = new History(store, () => now);
  for (const id of ["old", "mid", "new"]) {
    now += 10;
    history.save(id, [{ role: "user", content: id.repeat(20) }]);
  }
  now += 10;
  history.save("newest", [{ role: "user", content: "x".repeat(150) }]);
  assert.equal(store.getItem(PREFIX + "old"), null);
  assert.ok(store.getItem(PREFIX + "newest"));
});

test("history without storage is a harmless no-op", () => {
  const history = new History(null);
  history.save("a", hello);
  assert.deepEqual(history.load("a"), []);
});

test("citation labels skip empty and repeated parts", () => {
  assert.equal(citationLabel({ module: "M1", lesson: "Nodes", section: "What Are Nodes?" }), "M1 · Nodes · What Are Nodes?");
  assert.equal(citationLabel({ module: "M1", lesson: "M1", section: "Overview" }), "M1 · Overview");
  assert.equal(citationLabel({ module: "", lesson: "Intro", section: "" }), "Intro");
});

test("shortcuts read as written, per platform, and refuse what would take readers' keys", () => {
  assert.deepEqual(parseShortcut("mod+i", false), { key: "i", ctrl: true, meta: false, alt: false, shift: false });
  assert.deepEqual(parseShortcut("Mod+I", true), { key: "i", ctrl: false, meta: true, alt: false, shift: false });
  assert.deepEqual(parseShortcut("ctrl+shift+k", true), { key: "k", ctrl: true, meta: false, alt: false, shift: true });
  assert.deepEqual(parseShortcut("ctrl++", false), { key: "+", ctrl: true, meta: false, alt: false, shift: false });
  for (const off of ["off", "", " none "]) assert.equal(parseShortcut(off, false), null);
  assert.throws(() => parseShortcut("i", false), /needs ctrl/);
  assert.throws(() => parseShortcut("shift+i", false), /needs ctrl/);
  assert.throws(() => parseShortcut("hyper+i", false), /unknown modifier/);
  assert.throws(() => parseShortcut("ctrl+enter", false), /one key/);
  const mod = parseShortcut("mod+i", false)!;
  assert.equal(shortcutLabel(mod, false), "Ctrl+I");
  assert.equal(ariaShortcut(mod), "Control+I");
  const apple = parseShortcut("mod+shift+i", true)!;
  assert.equal(shortcutLabel(apple, true), "⇧⌘I");
  assert.equal(ariaShortcut(apple), "Meta+Shift+I");
  assert.ok(isApple("MacIntel") && isApple("iPhone") && !isApple("Linux x86_64") && !isApple("Win32"));
});

test("a shortcut matches its keys exactly, by character or by physical key", () => {
  const key = (init: Partial<KeyboardEvent>) =>
    ({ key: "", code: "", ctrlKey: false, metaKey: false, altKey: false, shiftKey: false, ...init }) as KeyboardEvent;
  const ctrlI = parseShortcut("ctrl+i", false)!;
  assert.ok(matches(key({ key: "i", code: "KeyI", ctrlKey: true }), ctrlI));
  assert.ok(matches(key({ key: "I", code: "KeyI", ctrlKey: true }), ctrlI)); // Caps Lock
  assert.ok(!matches(key({ key: "I", code: "KeyI", ctrlKey: true, shiftKey: true }), ctrlI));
  assert.ok(!matches(key({ key: "i", code: "KeyI" }), ctrlI));
  assert.ok(!matches(key({ key: "i", code: "KeyI", ctrlKey: true, altKey: true }), ctrlI));
  assert.ok(matches(key({ key: "ш", code: "KeyI", ctrlKey: true }), ctrlI)); // a Cyrillic layout
  assert.ok(matches(key({ key: "ˆ", code: "KeyI", altKey: true }), parseShortcut("alt+i", true)!)); // ⌥I on a Mac
  assert.ok(matches(key({ key: "/", code: "Slash", ctrlKey: true }), parseShortcut("ctrl+/", false)!));
});

test("colours made from any accent read at WCAG AA", () => {
  const white: RGB = [255, 255, 255];
  const nearBlack = parseHex("#1c1e21")!;
  for (const accent of ["#2e8555", "#ffd400", "#7fdbff", "#663399", "#000", "#fff"]) {
    const rgb = parseHex(accent)!;
    const light = readableOn(rgb, [white, parseHex("#f3f4f6")!], "black");
    const dark = readableOn(rgb, [parseHex("#1b1b1d")!, parseHex("#2a2b2e")!], "white");
    assert.ok(contrast(light, parseHex("#f3f4f6")!) >= AA && contrast(dark, parseHex("#2a2b2e")!) >= AA, accent);
    const filled = onAccent(rgb, nearBlack);
    assert.ok(contrast(filled.text, filled.background) >= AA, accent);
  }
  assert.equal(toHex(readableOn(parseHex("#1a7f37")!, [white], "black")), "#1a7f37"); // already readable: unchanged
  assert.deepEqual(parseHex("#abc"), [170, 187, 204]);
  assert.equal(parseHex("green"), null);
});
