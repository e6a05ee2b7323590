/** Server-Sent Events parsing for a fetch() body: chunks may split lines or events anywhere. */

export interface SSEEvent {
  event: string;
  data: string;
}

export class SSEParser {
  private buffer = "";
  private event = "message";
  private data: string[] = [];

  /** Feeds one decoded chunk; returns the events it completed. */
  feed(chunk: string): SSEEvent[] {
    this.buffer += chunk;
    const done: SSEEvent[] = [];
    let newline: number;
    while ((newline = this.buffer.search(/\r\n|\r|\n/)) >= 0) {
      const line = this.buffer.slice(0, newline);
      const width = this.buffer.startsWith("\r\n", newline) ? 2 : 1;
      if (width === 1 && this.buffer[newline] === "\r" && newline === this.buffer.length - 1) break;
      this.buffer = this.buffer.slice(newline + width);
      this.line(line, done);
    }
    return done;
  }

  private line(line: string, done: SSEEvent[]): void {
    if (line === "") {
      if (this.data.length) done.push({ event: this.event, data: this.data.join("\n") });
      this.event = "message";
      this.data = [];
      return;
    }
    if (line.startsWith(":")) return; // comment / keep-alive ping
    const colon = line.indexOf(":");
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (field === "event") this.event = value || "message";
    else if (field === "data") this.data.push(value);
  }
}
