/** The widget: launcher, chat panel and selection tooltip, inside a Shadow DOM. */

import { ChatError, sendFeedback, streamChat } from "./api";
import { renderMarkdown, safeUrl } from "./markdown";
import { highlighted, searchBook } from "./search";
import { citationHref, citationLabel, selectionText, shouldOffer, surroundingText } from "./selection";
import { History, randomId, storageOrNull, type Citation, type Message } from "./storage";
import { ariaShortcut, isApple, isEditable, matches, parseShortcut, shortcutLabel, type Shortcut } from "./shortcut";
import { styles } from "./styles";

export interface Options {
  apiUrl: string;
  bookId?: string;
  readerToken?: string; // a private book: the token the host site signed (X-Reader-Token)
  title: string;
  accent: string;
  position: "left" | "right";
  lessonId?: string;
  starterQuestions: string[];
  shortcut: string; // opens the widget: "mod+i" (⌘I / Ctrl+I), "off" for none
}

const MAX_QUERY = 2000;
const MAX_COMMENT = 2000; // as the feedback API accepts
const COUNTER_FROM = 1800;
const HISTORY_TURNS = 10;

/** Inline icons (system fonts may lack emoji); each is a 24×24 SVG path. */
const ICONS = {
  chat: "M4 4h16v12H7l-3 3z",
  plus: "M11 5h2v6h6v2h-6v6h-2v-6H5v-2h6z",
  close: "M6.4 5 12 10.6 17.6 5 19 6.4 13.4 12l5.6 5.6-1.4 1.4-5.6-5.6L6.4 19 5 17.6l5.6-5.6L5 6.4z",
  copy: "M8 3h11v13h-2V5H8zM5 7h10v14H5z",
  up: "M2 21h4V9H2zm20-11a2 2 0 0 0-2-2h-6.3l1-4.6V3l-1.1-1L7 8v13h11l4-8z",
  down: "M22 3h-4v12h4zM2 14a2 2 0 0 0 2 2h6.3l-1 4.6v.4l1.1 1L17 16V3H6l-4 8z",
};

function icon(name: keyof typeof ICONS): SVGSVGElement {
  const svg = document.createElementNS("http://www.w3.org/2000/svg", "svg");
  svg.setAttribute("viewBox", "0 0 24 24");
  svg.setAttribute("aria-hidden", "true");
  const path = document.createElementNS("http://www.w3.org/2000/svg", "path");
  path.setAttribute("d", ICONS[name]);
  svg.append(path);
  return svg;
}

function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Record<string, string> = {},
  ...children: (Node | string)[]
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) node.setAttribute(name, value);
  node.append(...children);
  return node;
}

/** Docusaurus marks doc pages with `docs-doc-id-<id>` on <html>; it follows SPA navigation. */
function docusaurusDocId(): string | undefined {
  const marker = Array.from(document.documentElement.classList).find((name) => name.startsWith("docs-doc-id-"));
  return marker?.slice("docs-doc-id-".length);
}

export class Widget {
  readonly host: HTMLElement;
  private readonly root: HTMLElement;
  private readonly launcher: HTMLButtonElement;
  private readonly panel: HTMLElement;
  private readonly list: HTMLElement;
  private readonly input: HTMLTextAreaElement;
  private readonly send: HTMLButtonElement;
  private readonly counter: HTMLElement;
  private readonly pendingQuote: HTMLElement;
  private readonly tooltip: HTMLButtonElement;
  private readonly status: HTMLElement;
  private readonly history: History;
  private readonly session: Storage | null;
  private readonly sessionId: string;
  private conversationId: string;
  private messages: Message[];
  private selection: { text: string; context: string } | null = null;
  private busy: AbortController | null = null;
  private readonly searchBox: HTMLElement;
  private readonly searchInput: HTMLInputElement;
  private readonly results: HTMLElement;
  private searching: AbortController | null = null;
  private searchTimer = 0;
  private activeResult = -1;
  // The comment box under a voted-down answer: kept across renders so what is typed stays.
  private commenting: { message: Message; box: HTMLFormElement } | null = null;

  constructor(private readonly options: Options) {
    this.session = storageOrNull("sessionStorage");
    this.history = new History(storageOrNull("localStorage"));
    this.sessionId = this.remember("lectern:session", randomId);
    this.conversationId = this.remember("lectern:conversation", randomId);
    this.messages = this.history.load(this.conversationId);

    this.host = el("div", { id: "lectern-widget" });
    const shadow = this.host.attachShadow({ mode: "open" });
    this.root = el("div", { class: "root", "data-position": options.position });
    shadow.append(el("style", {}, styles(options.accent)), this.root);

    this.launcher = el("button", { class: "launcher", "data-testid": "launcher", "aria-label": `Open ${options.title}`, "aria-expanded": "false" }, icon("chat"));
    this.listenForShortcut();
    const titleId = "lectern-title";
    const close = el("button", { class: "icon", "data-testid": "close", "aria-label": "Close chat" }, icon("close"));
    const newChat = el("button", { class: "icon", "data-testid": "new-chat", "aria-label": "New chat" }, icon("plus"));
    const mode = el("button", { class: "mode", "data-testid": "mode", "aria-pressed": "false" }, "Search");
    this.searchInput = el("input", { type: "search", "data-testid": "search-input", "aria-label": "Search the book", placeholder: "Search this book…", maxlength: String(MAX_QUERY) });
    this.results = el("ul", { class: "results", role: "listbox", "aria-label": "Search results", "data-testid": "search-results" });
    this.searchBox = el("div", { class: "search", hidden: "" }, this.searchInput, this.results);
    this.list = el("div", { class: "messages", role: "log", "aria-label": "Conversation" });
    this.status = el("div", { class: "sr-only", "aria-live": "polite" });
    this.input = el("textarea", { "data-testid": "input", rows: "1", "aria-label": "Your question", placeholder: "Ask about this book…", maxlength: String(MAX_QUERY) });
    this.send = el("button", { class: "send", type: "submit", "data-testid": "send", "aria-label": "Send question" }, "Send");
    this.counter = el("div", { class: "counter", "aria-live": "polite" });
    this.pendingQuote = el("div", { class: "pending-quote", "data-testid": "selection-quote", hidden: "" });
    const form = el("form", { class: "ask" }, this.pendingQuote, el("div", { class: "row" }, this.input, this.send), this.counter);
    this.panel = el(
      "section",
      { class: "panel", "data-testid": "panel", role: "dialog", "aria-modal": "true", "aria-labelledby": titleId, hidden: "" },
      el("header", {}, el("h2", { id: titleId }, options.title), mode, newChat, close),
      this.list,
      this.searchBox,
      this.status,
      form,
    );
    this.tooltip = el("button", { class: "tooltip", "data-testid": "ask-tooltip", hidden: "" }, "Ask about this");
    this.root.append(this.launcher, this.panel, this.tooltip);

    this.launcher.addEventListener("click", () => (this.panel.hidden ? this.open() : this.close()));
    close.addEventListener("click", () => this.close());
    newChat.addEventListener("click", () => this.newConversation());
    mode.addEventListener("click", () => {
      const search = this.searchBox.hidden;
      this.searchBox.hidden = !search;
      this.list.hidden = form.hidden = search;
      mode.textContent = search ? "Ask" : "Search";
      mode.setAttribute("aria-pressed", String(search));
      (search ? this.searchInput : this.input).focus();
    });
    this.searchInput.addEventListener("input", () => {
      clearTimeout(this.searchTimer);
      this.searchTimer = window.setTimeout(() => void this.search(), 200);
    });
    this.searchInput.addEventListener("keydown", (event) => this.onSearchKey(event));
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      void this.ask(this.input.value);
    });
    this.input.addEventListener("keydown", (event) => {
      if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
        event.preventDefault();
        void this.ask(this.input.value);
      }
    });
    this.input.addEventListener("input", () => this.updateInput());
    this.panel.addEventListener("keydown", (event) => this.onPanelKey(event));
    this.tooltip.addEventListener("mousedown", (event) => event.preventDefault()); // keep the selection
    this.tooltip.addEventListener("click", () => this.askAboutSelection());
    document.addEventListener("selectionchange", () => this.onSelection());
    document.addEventListener("mouseup", () => this.onSelection());
    this.followTheme();
    this.render();
    this.updateInput();
    if (this.session?.getItem("lectern:open") === "1") this.open(false);
  }

  setPage(lessonId: string | undefined): void {
    this.options.lessonId = lessonId;
  }

  open(focus = true): void {
    this.panel.hidden = false;
    this.launcher.setAttribute("aria-expanded", "true");
    this.session?.setItem("lectern:open", "1");
    this.scrollToEnd();
    if (focus) (this.searchBox.hidden ? this.input : this.searchInput).focus();
  }

  close(): void {
    this.panel.hidden = true;
    this.launcher.setAttribute("aria-expanded", "false");
    this.session?.setItem("lectern:open", "0");
    this.launcher.focus();
  }

  private remember(key: string, make: () => string): string {
    const known = this.session?.getItem(key);
    if (known) return known;
    const value = make();
    this.session?.setItem(key, value);
    return value;
  }

  private newConversation(): void {
    this.busy?.abort();
    this.commenting = null;
    this.conversationId = randomId();
    this.session?.setItem("lectern:conversation", this.conversationId);
    this.messages = [];
    this.render();
    this.input.focus();
  }

  /** The shortcut opens the widget (and closes it from inside), announced on the launcher; in a
   * field of the host page the keys stay the reader's. */
  private listenForShortcut(): void {
    const apple = isApple(navigator.platform || navigator.userAgent);
    let shortcut: Shortcut | null;
    try {
      shortcut = parseShortcut(this.options.shortcut, apple);
    } catch (error) {
      console.warn(`Lectern: ${(error as Error).message}; no keyboard shortcut`);
      return;
    }
    if (!shortcut) return;
    const label = shortcutLabel(shortcut, apple);
    this.launcher.setAttribute("aria-keyshortcuts", ariaShortcut(shortcut));
    this.launcher.setAttribute("aria-label", `Open ${this.options.title} (${label})`);
    this.launcher.title = `${this.options.title} (${label})`;
    document.addEventListener("keydown", (event) => {
      if (event.defaultPrevented || event.repeat || !matches(event, shortcut)) return;
      const inside = event.target === this.host; // events from the Shadow DOM reach the page as from its host
      if (!inside && isEditable(event.composedPath()[0] ?? null)) return;
      event.preventDefault();
      if (inside && !this.panel.hidden) this.close();
      else this.open();
    });
  }

  private followTheme(): void {
    const html = document.documentElement;
    const dark = window.matchMedia?.("(prefers-color-scheme: dark)");
    const apply = () => {
      const theme = html.getAttribute("data-theme");
      this.root.setAttribute("data-theme", theme === "dark" || (!theme && dark?.matches) ? "dark" : "light");
    };
    new MutationObserver(apply).observe(html, { attributes: true, attributeFilter: ["data-theme"] });
    dark?.addEventListener?.("change", apply);
    apply();
  }

  private async search(): Promise<void> {
    const query = this.searchInput.value.trim();
    this.searching?.abort();
    if (!query) return void this.results.replaceChildren();
    this.searching = new AbortController();
    try {
      const hits = await searchBook(this.options.apiUrl, this.sessionId, { query, book: this.options.bookId },
        this.searching.signal, this.options.readerToken);
      this.activeResult = -1;
      this.results.replaceChildren(...hits.map((hit, i) => {
        const link = el("a", { href: safeUrl(hit.url) ? citationHref(hit.url, hit.excerpt, hit.page, this.options.readerToken) : "#", "data-testid": "search-result" },
          el("strong", {}, citationLabel(hit)), el("span", {}, ...highlighted(hit.excerpt, hit.highlights)));
        return el("li", { role: "option", id: `lectern-result-${i}`, "aria-selected": "false" }, link);
      }));
      const none = `No passage of this book matches “${query}”. Try other words, or ask it as a question.`;
      if (!hits.length) this.results.append(el("li", { class: "empty", "data-testid": "search-empty" }, none));
      this.status.textContent = hits.length ? `${hits.length} results.` : none;
    } catch (error) {
      if (this.searching.signal.aborted) return;
      this.results.replaceChildren(el("li", { class: "empty", role: "alert" }, (error as Error).message));
    }
  }

  private onSearchKey(event: KeyboardEvent): void {
    const options = Array.from(this.results.querySelectorAll<HTMLElement>("[role=option]"));
    if (event.key === "Enter") {
      event.preventDefault();
      options[Math.max(this.activeResult, 0)]?.querySelector("a")?.click();
      return;
    }
    if (!options.length || (event.key !== "ArrowDown" && event.key !== "ArrowUp")) return;
    event.preventDefault();
    this.activeResult = (this.activeResult + (event.key === "ArrowDown" ? 1 : options.length - 1)) % options.length;
    options.forEach((option, i) => option.setAttribute("aria-selected", String(i === this.activeResult)));
    this.searchInput.setAttribute("aria-activedescendant", options[this.activeResult].id);
    options[this.activeResult].scrollIntoView({ block: "nearest" });
  }

  private onPanelKey(event: KeyboardEvent): void {
    if (event.key === "Escape") {
      event.preventDefault();
      this.close();
      return;
    }
    if (event.key !== "Tab") return;
    const focusable = Array.from(
      this.panel.querySelectorAll<HTMLElement>("button:not([disabled]), textarea, a[href]"),
    ).filter((node) => node.offsetParent !== null);
    if (!focusable.length) return;
    const active = this.panel.getRootNode() instanceof ShadowRoot ? (this.panel.getRootNode() as ShadowRoot).activeElement : null;
    const first = focusable[0];
    const last = focusable[focusable.length - 1];
    if (event.shiftKey && active === first) {
      event.preventDefault();
      last.focus();
    } else if (!event.shiftKey && active === last) {
      event.preventDefault();
      first.focus();
    }
  }

  private onSelection(): void {
    requestAnimationFrame(() => {
      const selection = document.getSelection();
      if (!shouldOffer(selection, this.host)) {
        this.tooltip.hidden = true;
        return;
      }
      const rect = selection!.getRangeAt(0).getBoundingClientRect();
      const top = rect.bottom + 8 + 44 > window.innerHeight ? rect.top - 52 : rect.bottom + 8;
      this.tooltip.style.top = `${Math.max(4, top)}px`;
      this.tooltip.style.left = `${Math.min(Math.max(4, rect.left), window.innerWidth - 160)}px`;
      this.tooltip.hidden = false;
    });
  }

  private askAboutSelection(): void {
    const selection = document.getSelection();
    if (!selection || selection.rangeCount === 0) return;
    this.selection = { text: selectionText(selection), context: surroundingText(selection) };
    this.tooltip.hidden = true;
    const clear = el("button", { class: "icon", "aria-label": "Remove quoted selection" }, icon("close"));
    clear.addEventListener("click", () => {
      this.selection = null;
      this.pendingQuote.hidden = true;
    });
    this.pendingQuote.replaceChildren(el("q", {}, this.selection.text), clear);
    this.pendingQuote.hidden = false;
    this.open();
  }

  private updateInput(): void {
    const length = this.input.value.length;
    this.counter.textContent = length >= COUNTER_FROM ? `${length} / ${MAX_QUERY}` : "";
    this.counter.classList.toggle("over", length > MAX_QUERY);
    this.send.disabled = !!this.busy || !this.input.value.trim() || length > MAX_QUERY;
    this.input.style.height = "auto";
    this.input.style.height = `${Math.min(this.input.scrollHeight, 120)}px`;
  }

  async ask(raw: string): Promise<void> {
    const query = raw.trim();
    if (!query || this.busy || query.length > MAX_QUERY) return;
    const selection = this.selection;
    const past = this.messages.filter((m) => !m.error).slice(-HISTORY_TURNS);
    const question: Message = { role: "user", content: query, selection: selection?.text };
    const answer: Message = { role: "assistant", content: "", citations: [] };
    this.messages.push(question, answer);
    this.selection = null;
    this.pendingQuote.hidden = true;
    this.input.value = "";
    this.busy = new AbortController();
    this.updateInput();
    this.render(true);
    let frame = 0;
    const redraw = () => {
      if (!frame) frame = requestAnimationFrame(() => ((frame = 0), this.render(true)));
    };
    try {
      await streamChat(
        this.options.apiUrl,
        this.sessionId,
        {
          query,
          selected_text: selection?.text,
          surrounding_text: selection?.context || undefined,
          lesson_id: this.options.lessonId ?? docusaurusDocId(),
          conversation_history: past.map((m) => ({ role: m.role, content: m.content })),
          conversation_id: this.conversationId,
          book: this.options.bookId,
        },
        {
          text: (delta) => ((answer.content += delta), redraw()),
          replace: (text) => ((answer.content = text), redraw()),
          source: (citation) => answer.citations!.push(citation),
          confidence: (status, confidence, reviewed) => Object.assign(answer, { status, confidence, reviewed }),
          done: (_, messageId) => (answer.messageId = messageId),
        },
        this.busy.signal,
        this.options.readerToken,
      );
      this.status.textContent = "Answer ready.";
    } catch (error) {
      if (this.busy?.signal.aborted) return;
      answer.error = true;
      answer.content = error instanceof ChatError ? error.message : "Something went wrong. Please try again.";
      this.status.textContent = answer.content;
    } finally {
      this.busy = null;
      this.history.save(this.conversationId, this.messages);
      this.render();
      this.updateInput();
    }
  }

  private render(typing = false): void {
    const nodes: Node[] = [];
    if (!this.messages.length) {
      const starters = el("div", { class: "starters" }, el("p", {}, "Ask anything about this book. Answers come only from its pages, with links to the source."));
      for (const question of this.options.starterQuestions) {
        const button = el("button", { "data-testid": "starter" }, question);
        button.addEventListener("click", () => void this.ask(question));
        starters.append(button);
      }
      nodes.push(starters);
    }
    for (const message of this.messages) nodes.push(this.renderMessage(message));
    if (typing && this.busy) nodes.push(el("div", { class: "typing", "data-testid": "typing", "aria-hidden": "true" }, "Lectern is writing…"));
    this.list.replaceChildren(...nodes);
    this.scrollToEnd();
  }

  private renderMessage(message: Message): HTMLElement {
    if (message.role === "user") {
      const bubble = el("div", { class: "msg user", "data-testid": "message-user" });
      if (message.selection) bubble.append(el("div", { class: "quote" }, message.selection));
      bubble.append(message.content);
      return bubble;
    }
    if (message.error) return el("div", { class: "msg error", role: "alert", "data-testid": "error" }, message.content);
    const citations = message.citations ?? [];
    const hrefs = citations.map((c) => (safeUrl(c.url) ? citationHref(c.url, c.excerpt, c.page, this.options.readerToken) : ""));
    const bubble = el("div", { class: "msg", "data-testid": "message-assistant", "data-message-id": message.messageId ?? "" });
    const body = el("div");
    body.innerHTML = renderMarkdown(message.content, (n) => hrefs[n - 1] || null); // escaped by renderMarkdown
    bubble.append(body);
    if (citations.length) bubble.append(this.renderCitations(citations, hrefs));
    if (message.messageId) bubble.append(this.renderMeta(message));
    if (this.commenting?.message === message) bubble.append(this.commenting.box);
    else if (message.comment) bubble.append(el("div", { class: "thanks", "data-testid": "comment-sent" }, "Thanks, your comment was sent to the maintainers."));
    return bubble;
  }

  private renderCitations(citations: Citation[], hrefs: string[]): HTMLElement {
    const list = el("ol", { class: "citations", "aria-label": "Sources" });
    citations.forEach((citation, i) => {
      const label = `[${i + 1}] ${citationLabel(citation)}`;
      if (!hrefs[i]) {
        list.append(el("li", { "data-testid": "citation" }, label)); // not a web link: shown, never followed
        return;
      }
      const link = el("a", { href: hrefs[i], "data-testid": "citation", title: citation.excerpt }, label);
      if (new URL(hrefs[i], location.href).origin !== location.origin) {
        Object.assign(link, { target: "_blank", rel: "noopener" });
      }
      list.append(el("li", {}, link));
    });
    return list;
  }

  private renderMeta(message: Message): HTMLElement {
    const labels: Record<string, string> = { high: "High confidence", needs_review: "Needs review", not_found: "Not found in the book" };
    const meta = el("div", { class: "meta" });
    if (message.confidence) {
      meta.append(el("span", { class: `badge ${message.confidence}`, "data-testid": "confidence" }, labels[message.confidence] ?? message.confidence));
    }
    if (message.reviewed) meta.append(el("span", { class: "badge high", "data-testid": "reviewed" }, "Reviewed by the maintainers"));
    const copy = el("button", { "data-testid": "copy", "aria-label": "Copy answer" }, icon("copy"));
    copy.addEventListener("click", () => void navigator.clipboard?.writeText(message.content));
    meta.append(copy);
    for (const [kind, helpful] of [["up", true], ["down", false]] as const) {
      const button = el("button", {
        "data-testid": `feedback-${kind}`,
        "aria-label": helpful ? "Helpful" : "Not helpful",
        "aria-pressed": String(message.feedback === kind),
      }, icon(kind));
      button.addEventListener("click", async () => {
        if (!message.messageId) return;
        if (message.feedback === "down" && !helpful && !message.comment) return this.openComment(message); // skipped before
        if (message.feedback) return;
        if (await sendFeedback(this.options.apiUrl, this.sessionId, message.messageId, helpful)) {
          message.feedback = kind;
          this.history.save(this.conversationId, this.messages);
          if (helpful) this.render();
          else this.openComment(message);
        }
      });
      meta.append(button);
    }
    return meta;
  }

  /** After a thumbs-down (already recorded): an optional comment, sent as the same vote. */
  private openComment(message: Message): void {
    if (this.commenting?.message === message) return this.commenting.box.querySelector("textarea")?.focus();
    const id = `lectern-comment-${randomId()}`;
    const text = el("textarea", { id, rows: "3", maxlength: String(MAX_COMMENT), "data-testid": "comment-input" });
    const send = el("button", { type: "submit", class: "send", "data-testid": "comment-send", disabled: "" }, "Send");
    const cancel = el("button", { type: "button", class: "secondary", "data-testid": "comment-cancel" }, "Skip");
    const failed = el("div", { class: "comment-error", role: "alert", hidden: "" });
    const box = el("form", { class: "comment", "data-testid": "comment-box", "aria-label": "Comment on this answer" },
      el("label", { for: id }, "Thanks. What was wrong or missing? (optional)"), text, failed,
      el("div", { class: "row" }, cancel, send));
    text.addEventListener("input", () => (send.disabled = !text.value.trim()));
    text.addEventListener("keydown", (event) => {
      if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
        event.preventDefault();
        box.requestSubmit();
      }
    });
    box.addEventListener("keydown", (event) => {
      if (event.key !== "Escape") return;
      event.preventDefault();
      event.stopPropagation(); // closes the box, not the panel
      this.closeComment(message, "Comment skipped. Your vote is kept.");
    });
    cancel.addEventListener("click", () => this.closeComment(message, "Comment skipped. Your vote is kept."));
    box.addEventListener("submit", async (event) => {
      event.preventDefault();
      const comment = text.value.trim();
      if (!comment || send.disabled || !message.messageId) return;
      send.disabled = true;
      if (await sendFeedback(this.options.apiUrl, this.sessionId, message.messageId, false, comment)) {
        message.comment = comment;
        this.history.save(this.conversationId, this.messages);
        this.closeComment(message, "Thanks, your comment was sent.");
      } else {
        failed.textContent = "Your comment could not be sent. Please try again.";
        failed.hidden = false;
        send.disabled = false;
      }
    });
    this.commenting = { message, box };
    this.render();
    this.status.textContent = "Vote recorded. You can say what was wrong or missing, or press Escape to skip.";
    text.focus();
  }

  private closeComment(message: Message, announcement: string): void {
    this.commenting = null;
    this.render();
    this.status.textContent = announcement;
    const bubble = Array.from(this.list.querySelectorAll<HTMLElement>("[data-message-id]"))
      .find((node) => node.dataset.messageId === message.messageId);
    bubble?.querySelector<HTMLElement>("[data-testid=feedback-down]")?.focus();
  }

  private scrollToEnd(): void {
    this.list.scrollTop = this.list.scrollHeight;
  }
}
