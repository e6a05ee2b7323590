/** Conversation history in localStorage: 7-day expiry, oldest conversations evicted first when
 * storage is full, and a silent no-op when storage is unavailable (private modes, blocked). */

export const PREFIX = "lectern:conv:";
export const TTL_MS = 7 * 24 * 60 * 60 * 1000;

export interface Citation {
  number?: number;
  module: string;
  lesson: string;
  section: string;
  url: string;
  excerpt: string;
  score?: number;
  page?: number | null; // a PDF's page
}

export interface Message {
  role: "user" | "assistant";
  content: string;
  selection?: string;
  citations?: Citation[];
  status?: string;
  confidence?: string;
  reviewed?: boolean;
  messageId?: string;
  feedback?: "up" | "down";
  comment?: string; // sent with a thumbs-down
  error?: boolean;
}

interface Saved {
  updated: number;
  messages: Message[];
}

export class History {
  constructor(private readonly store: Storage | null, private readonly now: () => number = Date.now) {
    this.prune();
  }

  load(conversationId: string): Message[] {
    const saved = this.read(PREFIX + conversationId);
    return saved && this.now() - saved.updated < TTL_MS ? saved.messages : [];
  }

  save(conversationId: string, messages: Message[]): void {
    if (!this.store) return;
    const value = JSON.stringify({ updated: this.now(), messages } satisfies Saved);
    for (;;) {
      try {
        this.store.setItem(PREFIX + conversationId, value);
        return;
      } catch {
        if (!this.evictOldest(PREFIX + conversationId)) return; // nothing left to free
      }
    }
  }

  /** Removes expired conversations. */
  prune(): void {
    for (const [key, saved] of this.entries()) {
      if (!saved || this.now() - saved.updated >= TTL_MS) this.remove(key);
    }
  }

  private evictOldest(keep: string): boolean {
    const others = this.entries().filter(([key]) => key !== keep);
    if (!others.length) return false;
    others.sort((a, b) => (a[1]?.updated ?? 0) - (b[1]?.updated ?? 0));
    this.remove(others[0][0]);
    return true;
  }

  private entries(): [string, Saved | null][] {
    if (!this.store) return [];
    const keys: string[] = [];
    try {
      for (let i = 0; i < this.store.length; i++) {
        const key = this.store.key(i);
        if (key?.startsWith(PREFIX)) keys.push(key);
      }
    } catch {
      return [];
    }
    return keys.map((key) => [key, this.read(key)]);
  }

  private read(key: string): Saved | null {
    try {
      const raw = this.store?.getItem(key);
      const saved = raw ? (JSON.parse(raw) as Saved) : null;
      return saved && Array.isArray(saved.messages) && typeof saved.updated === "number" ? saved : null;
    } catch {
      return null;
    }
  }

  private remove(key: string): void {
    try {
      this.store?.removeItem(key);
    } catch {
      /* storage went away: nothing to remove */
    }
  }
}

/** localStorage / sessionStorage, or null where the browser refuses access. */
export function storageOrNull(kind: "localStorage" | "sessionStorage"): Storage | null {
  try {
    const store = window[kind];
    const probe = "lectern:probe";
    store.setItem(probe, "1");
    store.removeItem(probe);
    return store;
  } catch {
    return null;
  }
}

export function randomId(): string {
  const bytes = new Uint8Array(12);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}
