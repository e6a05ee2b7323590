"use strict";
const $ = (id) => document.getElementById(id);
const STATUSES = ["found", "partial", "not_found"];
// Signed in, the token is an HttpOnly cookie this script cannot read; the server counts it only
// on requests that carry this header (see backend/api/admin.py).
const CONSOLE = { "X-Lectern-Console": "1" };

function el(tag, attrs = {}, ...children) {
  const node = tag === "svg" || ["rect", "title", "g", "text"].includes(tag)
    ? document.createElementNS("http://www.w3.org/2000/svg", tag) : document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, value);
  for (const child of children) node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  return node;
}

async function api(path) {
  const response = await fetch(path, { headers: CONSOLE });
  if (!response.ok) {
    const detail = await response.json().then((body) => body.detail, () => response.statusText);
    throw Object.assign(new Error(detail), { status: response.status });
  }
  return response;
}

// Links come from the book's pages (a built site's canonical URLs): only web links are followed.
// A web URL or a path of this site; not "//host" nor "/\host" (another host to a browser), nor
// control characters (which browsers strip).
function safeUrl(url) { return /^(https?:\/\/|\/(?![\/\\]))[^\u0000-\u001f\u007f]*$/i.test(url) ? url : "#"; }

function when(iso) { return new Date(iso).toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" }); }

function perDayChart(days) {
  const width = 1000, height = 180, gap = 2;
  const most = Math.max(1, ...days.map((d) => d.found + d.partial + d.not_found));
  const bar = width / days.length;
  const svg = el("svg", { viewBox: `0 0 ${width} ${height + 20}`, width: "100%", role: "img",
                          "aria-label": "Questions per day, by answer status" });
  days.forEach((day, i) => {
    let y = height;
    const group = el("g", {}, el("title", {}, `${day.day}: ${day.found} found, ${day.partial} partial, ${day.not_found} not found`));
    for (const status of STATUSES) {
      const h = (day[status] / most) * (height - 10);
      if (!h) continue;
      y -= h;
      group.append(el("rect", { x: i * bar + gap / 2, y, width: Math.max(1, bar - gap), height: h,
                                fill: `var(--${status})`, "data-status": status }));
    }
    svg.append(group);
  });
  svg.append(el("text", { x: 0, y: height + 16, "font-size": 12, fill: "currentColor" }, days[0].day));
  svg.append(el("text", { x: width, y: height + 16, "font-size": 12, fill: "currentColor", "text-anchor": "end" },
                days[days.length - 1].day));
  return svg;
}

function statusBar(mix, total) {
  const bar = el("div", { class: "bar", role: "img", "aria-label": STATUSES.map((s) => `${mix[s]} ${s.replace("_", " ")}`).join(", ") });
  for (const status of STATUSES) {
    if (!mix[status]) continue;
    const part = el("span", { title: `${status}: ${mix[status]}` });
    part.style.flex = String(mix[status]);  // CSSOM, not a style attribute: the CSP allows no inline styles
    part.style.background = `var(--${status})`;
    bar.append(part);
  }
  const share = (s) => total ? Math.round((100 * mix[s]) / total) : 0;
  return [bar, el("p", { class: "muted" }, STATUSES.map((s) => `${s.replace("_", " ")} ${mix[s]} (${share(s)}%)`).join(" · "))];
}

function rows(table, items, cells, empty = "Nothing yet.") {
  const body = table.querySelector("tbody");
  body.replaceChildren(...items.map((item) => el("tr", {}, ...cells(item).map((cell) => el("td", {}, cell)))));
  if (!items.length) body.append(el("tr", {}, el("td", { colspan: 4, class: "muted" }, empty)));
}

async function load() {
  const book = $("book").value, days = $("days").value;
  $("error").textContent = "";
  clearTimeout(polling);
  try {
    const overview = await (await api(`/api/admin/books/${book}/overview?days=${days}`)).json();
    const kpi = (value, label) => el("div", { class: "kpi" }, el("b", {}, value), el("span", {}, label));
    const notFound = overview.questions ? Math.round((100 * overview.status_mix.not_found) / overview.questions) : 0;
    document.querySelector("[data-testid=kpis]").replaceChildren(
      kpi(overview.questions, "questions"), kpi(`${notFound}%`, "not found in the book"),
      kpi(`${overview.latency_p50_ms} ms`, "median answer time"), kpi(`${overview.latency_p95_ms} ms`, "p95 answer time"),
      kpi(`${overview.helpful} / ${overview.unhelpful}`, "answers voted helpful / not"));
    $("per-day").replaceChildren(perDayChart(overview.per_day));
    $("mix").replaceChildren(...statusBar(overview.status_mix, overview.questions));
    rows(document.querySelector("[data-testid=top-questions]"), overview.top_questions,
         (q) => [q.times, q.question, when(q.last_asked), button("Write an answer", () => writeAnswer(q.question), "write-answer")]);
    rows(document.querySelector("[data-testid=feedback]"), overview.feedback,
         (f) => [f.helpful ? "helpful" : "not helpful", f.question, f.comment || "", when(f.created_at)]);
    $("q-detail").hidden = true;
    openQuestionnaire = null;
    listSources();
    listQuestionnaires();
    listCurated();
    $("gaps").replaceChildren(el("p", { class: "muted" }, "Grouping questions…"));
    const gaps = await (await api(`/api/admin/books/${book}/gaps?days=${days}`)).json();
    $("gap-method").textContent = gaps.method;
    $("gaps").replaceChildren(...(gaps.gaps.length ? gaps.gaps.map((gap) => el("div", { class: "gap", "data-testid": "gap" },
      el("b", {}, `${gap.count} × `, gap.questions[0].question),
      el("ul", {}, ...gap.questions.map((q) => el("li", {}, `${q.question} `, el("span", { class: "muted" }, `(${q.times}×, ${q.why})`),
        " ", button("Write an answer", () => writeAnswer(q.question))))),
      el("div", { class: "muted" }, "Closest lessons: ", ...gap.closest_lessons.flatMap((lesson, i) => [
        i ? " · " : "", el("a", { href: safeUrl(lesson.url), target: "_blank", rel: "noopener" }, [lesson.module, lesson.lesson].filter(Boolean).join(" › "))]))))
      : [el("p", { class: "muted" }, "No unanswered or voted-down questions in this period.")]));
    $("off-topic").replaceChildren(...gaps.off_topic.map((q) => el("li", {}, `${q.question} `, el("span", { class: "muted" }, `(${q.times}×, ${q.why})`))));
  } catch (error) {
    if (error.status === 401 || error.status === 403) return logout(error.message);
    $("error").textContent = error.message;
  }
}

// --- sources ---------------------------------------------------------------------------------
const sBase = () => `/api/admin/books/${$("book").value}/sources`;

function indexed(report) {
  const problems = report.problems.length ? ` Problems: ${report.problems.join("; ")}` : "";
  return report.pages ? `Indexed: ${report.pages} pages, ${report.chunks} passages (${report.embedded} embedded).${problems}`
                      : "The book has no sources left: readers get “not found” until you upload one.";
}

async function listSources() {
  const table = document.querySelector("[data-testid=s-list]");
  const heading = (...names) => table.tHead.replaceChildren(el("tr", {}, ...names.map((name) => el("th", {}, name))));
  try {
    const { managed, files, folder, ingested } = await (await api(sBase())).json();
    $("s-add").hidden = !managed;
    $("s-folder").hidden = managed;
    if (managed) {
      heading("file", "size", "uploaded", "");
      rows(table, files, (f) => [
        f.name, `${Math.max(1, Math.round(f.bytes / 1024))} KB`, when(f.modified),
        button("Delete", () => changeSources(() => send(`${sBase()}/${encodeURIComponent(f.name)}`, "DELETE")), "s-delete")],
        "No files yet: upload markdown, text or PDF files to answer from.");
      return;
    }
    const command = el("code", {}, "lectern ingest");
    $("s-folder").replaceChildren("This book is indexed from ", folder ? el("code", {}, folder) : "a folder", " with ", command,
      ": add, change or delete files there, then run ", command.cloneNode(true), " again to update it.");
    heading("file", "title", "passages", "");
    rows(table, ingested, (f) => [
      f.name, f.title, f.pages > 1 ? `${f.passages} (${f.pages} chapters)` : f.passages,
      el("a", { href: safeUrl(f.url), target: "_blank", rel: "noopener" }, "Open")]);
  } catch (error) {
    $("s-status").textContent = error.message;
  }
}

async function changeSources(change) {
  $("s-upload").disabled = true;
  $("s-status").textContent = "Indexing…";
  let status;
  try {
    status = indexed(await change());
  } catch (error) {
    status = error.message;
  }
  await load();  // the figures, gaps and lists of the new index
  $("s-status").textContent = status;
}

$("s-file").addEventListener("change", () => { $("s-upload").disabled = !$("s-file").files.length; });
$("s-upload").addEventListener("click", () => changeSources(async () => {
  let report = null;
  for (const file of $("s-file").files) {
    const response = await fetch(`${sBase()}/${encodeURIComponent(file.name)}`, { method: "PUT", body: file,
      headers: { ...CONSOLE, "Content-Type": "application/octet-stream" } });
    const body = await response.json();
    if (!response.ok) throw new Error(body.detail);
    report = body;
  }
  $("s-file").value = "";
  return report;
}));

// --- reviewed answers ------------------------------------------------------------------------
let editing = null;
const cBase = () => `/api/admin/books/${$("book").value}`;

async function findPassages(checked = []) {
  const question = $("c-question").value.trim();
  if (!question) return;
  const passages = await (await api(`${cBase()}/passages?q=${encodeURIComponent(question)}`)).json();
  $("c-passages").replaceChildren(...passages.map((p, i) => el("label", { class: "muted passage" },
    el("input", { type: "checkbox", value: p.chunk_id, "data-testid": "c-passage", ...((checked.length ? checked.includes(p.chunk_id) : i === 0) ? { checked: "" } : {}) }),
    " ", el("b", {}, where(p)), ": ", ...withCode(p.excerpt))));
}

// An excerpt's code spans (`baud_rate: 1000000`) as code, the rest as text.
function withCode(text) { return text.split(/`([^`]+)`/).map((part, i) => i % 2 ? el("code", {}, part) : part); }

// "Lesson › Section"; a page's opening passage has no section.
function where(passage) { return [passage.lesson, passage.section].filter(Boolean).join(" › "); }

function writeAnswer(question, answer = "", id = null, cited = []) {
  editing = id;
  $("c-question").value = question;
  $("c-answer").value = answer;
  $("c-form").scrollIntoView({ behavior: "smooth" });
  findPassages(cited);
}

async function listCurated() {
  const { same_question_similarity: level, answers } = await (await api(`${cBase()}/curated`)).json();
  $("c-level").textContent = `A reader's question gets a reviewed answer when its similarity to the reviewed question `
    + `(the cosine of their embeddings) is at least ${level.toFixed(2)}: higher than any two different topics of this `
    + "book reach (its section titles from different pages, and everyday questions), measured on each build.";
  rows(document.querySelector("[data-testid=c-list]"), answers, (c) => [
    c.question,
    el("div", {}, c.answer, el("div", { class: "muted" }, c.citations.map(where).join(" · ")),
       ...(c.changed.length ? [el("div", { role: "alert" }, "A cited passage changed since approval: review it.")] : [])),
    el("span", { class: `status ${c.state === "active" ? "FOUND" : c.state === "needs_review" ? "PARTIAL" : "NOT_FOUND"}`, "data-testid": "c-state" }, c.state.replace("_", " ")),
    el("span", { class: "row-actions" },
       button("Edit", () => writeAnswer(c.question, c.answer, c.id, c.citations.map((p) => p.chunk_id))),
       ...(c.state !== "withdrawn" ? [button("Withdraw", () => send(`${cBase()}/curated/${c.id}/withdraw`, "POST").then(listCurated), "c-withdraw")] : []))]);
}

$("c-find").addEventListener("click", () => findPassages());
$("c-cancel").addEventListener("click", () => { editing = null; $("c-form").reset(); $("c-passages").replaceChildren(); });
$("c-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  const citations = [...document.querySelectorAll("[data-testid=c-passage]:checked")].map((box) => box.value);
  const body = { question: $("c-question").value, answer: $("c-answer").value, citations };
  try {
    await send(editing ? `${cBase()}/curated/${editing}` : `${cBase()}/curated`, editing ? "PUT" : "POST", body);
    editing = null;
    $("c-form").reset();
    $("c-passages").replaceChildren();
    await listCurated();
  } catch (error) {
    $("error").textContent = error.message;
  }
});

// --- questionnaires -------------------------------------------------------------------------
let openQuestionnaire = null, polling = null;
const qBase = () => `/api/admin/books/${$("book").value}/questionnaires`;

async function send(path, method, body) {
  const response = await fetch(path, { method, headers: { ...CONSOLE, "Content-Type": "application/json" },
                                       body: body === undefined ? undefined : JSON.stringify(body) });
  if (!response.ok) throw new Error(await response.json().then((b) => b.detail, () => response.statusText));
  return response.status === 204 ? null : response.json();
}

$("q-file").addEventListener("change", async () => {
  const file = $("q-file").files[0];
  let columns = [];
  if (file) {  // the server reads the header as the upload will
    const response = await fetch(`${qBase()}/columns`, { method: "POST", body: await file.text(),
      headers: { ...CONSOLE, "Content-Type": "text/csv" } });
    const body = await response.json();
    if (response.ok) columns = body.columns; else $("error").textContent = body.detail;
  }
  $("q-column").replaceChildren(...columns.map((c) => el("option", { value: c }, c)));
  const question = columns.find((c) => /question/i.test(c));
  if (question) $("q-column").value = question;
  $("q-upload").disabled = !columns.length;
});

$("q-upload").addEventListener("click", async () => {
  const file = $("q-file").files[0];
  const name = file.name.replace(/\.csv$/i, "");
  const response = await fetch(`${qBase()}?column=${encodeURIComponent($("q-column").value)}&name=${encodeURIComponent(name)}`,
    { method: "POST", headers: { ...CONSOLE, "Content-Type": "text/csv" }, body: await file.text() });
  const body = await response.json();
  if (!response.ok) { $("error").textContent = body.detail; return; }
  $("q-file").value = "";
  $("q-upload").disabled = true;
  await listQuestionnaires();
  await showQuestionnaire(body.id);
});

async function listQuestionnaires() {
  const list = await (await api(qBase())).json();
  rows(document.querySelector("[data-testid=q-list]"), list, (q) => [
    q.name, `${q.answered} of ${q.rows}${q.answering ? " (answering…)" : ""}`, q.approved,
    `${q.statuses.FOUND} / ${q.statuses.PARTIAL} / ${q.statuses.NOT_FOUND}`,
    el("span", { class: "row-actions" }, button("Open", () => showQuestionnaire(q.id)),
       button("Delete", async () => { await send(`${qBase()}/${q.id}`, "DELETE"); $("q-detail").hidden = true; listQuestionnaires(); }))]);
}

function button(label, onclick, testid) {
  const node = el("button", { class: "plain", type: "button", ...(testid ? { "data-testid": testid } : {}) }, label);
  node.addEventListener("click", onclick);
  return node;
}

async function showQuestionnaire(id) {
  openQuestionnaire = id;
  clearTimeout(polling);
  const filter = $("q-filter").value;
  const detail = await (await api(`${qBase()}/${id}${filter ? `?${filter}` : ""}`)).json();
  const q = detail.questionnaire;
  $("q-detail").hidden = false;
  $("q-title").textContent = `${q.name}: ${q.answered} of ${q.rows} answered, ${q.approved} approved${q.answering ? " (answering…)" : ""}`;
  const body = document.querySelector("[data-testid=q-rows] tbody");
  body.replaceChildren(...detail.rows.map((row) => questionnaireRow(row)));
  const unanswered = detail.rows.some((row) => row.question && !row.generated) && !filter;
  $("q-title").append(...(!q.answering && unanswered ? [" ", button("Answer the rest", () =>
    send(`${qBase()}/${id}/answer`, "POST").then(() => showQuestionnaire(id)), "q-resume")] : []));
  if (q.answering) polling = setTimeout(() => showQuestionnaire(id), 1000);
  else listQuestionnaires();
}

function questionnaireRow(row) {
  const made = row.generated;
  const answer = el("td", {}, row.approved_answer ?? (made ? made.answer : ""));
  if (made && made.citations.length) {
    answer.append(el("div", { class: "muted" }, ...made.citations.flatMap((c, i) => [
      i ? " · " : "", el("a", { href: safeUrl(c.url), target: "_blank", rel: "noopener" }, where(c))])));
  }
  if (row.approved_answer !== null) answer.prepend(el("div", { class: "muted" }, "✓ approved"));
  const path = `${qBase()}/${openQuestionnaire}/rows/${row.position}/approval`;
  const refresh = () => showQuestionnaire(openQuestionnaire);
  const actions = el("span", { class: "row-actions" });  // inside the cell: a flex cell leaves the table's rows
  if (made && row.approved_answer === null) actions.append(button("Approve", () => send(path, "PUT", {}).then(refresh), "approve"));
  actions.append(button("Edit", () => {
    const text = el("textarea", { "aria-label": "Approved answer", "data-testid": "edit-text" });
    text.value = row.approved_answer ?? (made ? made.answer : "");
    answer.replaceChildren(text, button("Save and approve", () => send(path, "PUT", { answer: text.value }).then(refresh), "save"));
    text.focus();
  }, "edit"));
  if (row.approved_answer !== null) {
    actions.append(button("Unapprove", () => send(path, "DELETE").then(refresh), "unapprove"));
    // Readers who ask this get it too, once its passages are ticked in "Reviewed answers".
    actions.append(button("Serve to readers", () => writeAnswer(row.question, row.approved_answer), "serve-row"));
  }
  return el("tr", { "data-testid": "q-row", "data-position": row.position },
    el("td", {}, row.position), el("td", {}, row.question), answer,
    el("td", {}, made ? el("span", { class: `status ${made.status}` }, made.status) : ""), el("td", {}, actions));
}

$("q-filter").addEventListener("change", () => openQuestionnaire && showQuestionnaire(openQuestionnaire));
$("q-export").addEventListener("click", async () => {
  save(await api(`${qBase()}/${openQuestionnaire}/export?mode=${$("q-mode").value}`));
});

async function download(format) {
  save(await api(`/api/admin/books/${$("book").value}/interactions?days=${$("days").value}&format=${format}`));
}

// A download under the name the server gives it (book, what, date).
async function save(response) {
  const name = (response.headers.get("Content-Disposition") || "").match(/filename="([^"]+)"/)?.[1] || "lectern-export";
  const link = el("a", { href: URL.createObjectURL(await response.blob()), download: name });
  document.body.append(link);
  link.click();
  link.remove();
}

async function open() {
  try {
    const { books } = await (await api("/api/admin/books")).json();
    $("book").replaceChildren(...books.map((book) => el("option", { value: book }, book)));
    $("login").hidden = true;
    $("console").hidden = false;
    await load();
  } catch (error) {
    if (error.status === 401) showLogin();  // not signed in in this browser
    else logout(error.message);
  }
}

async function logout(message = "") {
  await fetch("/api/admin/session", { method: "DELETE" });
  showLogin(message);
}

function showLogin(message = "") {
  $("console").hidden = true;
  $("login").hidden = false;
  $("login-error").textContent = message;
}

$("login").addEventListener("submit", async (event) => {
  event.preventDefault();
  const response = await fetch("/api/admin/session", { method: "POST",
    headers: { Authorization: `Bearer ${$("token").value.trim()}` } });
  if (!response.ok) return showLogin(await response.json().then((body) => body.detail, () => response.statusText));
  $("token").value = "";
  open();
});
$("book").addEventListener("change", load);
$("days").addEventListener("change", load);
$("csv").addEventListener("click", () => download("csv"));
$("json").addEventListener("click", () => download("json"));
$("logout").addEventListener("click", () => logout());
open();
