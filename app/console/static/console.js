// The chat playground: a chat streamed through /api/v1/chat/stream, as any client of the API streams it,
// and the scope chip kept in step with the conversation. Plain script, no library, no build step; the
// console's other pages are plain HTML forms. The API accepts these calls through the console's HttpOnly
// session cookie only because each one carries the session's CSRF value (X-CSRF-Token).
"use strict";

(() => {
  const root = document.getElementById("playground");
  if (!root) return;
  const $ = (id) => document.getElementById(id);
  const headers = {
    "Content-Type": "application/json",
    "X-CSRF-Token": document.querySelector('meta[name="csrf-token"]').content,
  };
  const employeeId = Number(root.dataset.employeeId);
  let conversationId = root.dataset.conversationId ? Number(root.dataset.conversationId) : null;
  const state = { scope: root.dataset.scope, label: root.dataset.scopeLabel, pinned: root.dataset.pinned === "true" };
  const chip = $("scope-chip"), pinnedChip = $("pinned-chip"), menu = $("scope-menu");
  const pinOption = $("pin-option"), pin = $("pin"), status = $("scope-status");
  const transcript = $("transcript"), form = $("chat-form"), message = $("message"), send = $("send");
  const errorBox = $("chat-error");
  const items = () => Array.from(menu.querySelectorAll("[data-scope]"));

  // --- the scope chip ------------------------------------------------------------------------------
  function renderChip(changed) {
    chip.textContent = state.label;
    pinnedChip.querySelector(".label").textContent = state.label;
    chip.hidden = state.pinned;  // a pinned conversation's scope is fixed: shown, not offered
    pinnedChip.hidden = !state.pinned;
    for (const item of items()) item.setAttribute("aria-checked", String(item.dataset.scope === state.scope));
    pinOption.hidden = conversationId !== null || state.scope === "all" || state.scope === "none";
    if (changed) {
      const shown = state.pinned ? pinnedChip : chip;
      shown.classList.remove("changed");
      void shown.offsetWidth;  // restart the highlight when the scope changes twice in a row
      shown.classList.add("changed");
      shown.dataset.changedTo = state.scope;
      status.textContent = `The model changed the scope to ${state.label}`;
    }
  }

  function openMenu() {
    menu.hidden = false;
    chip.setAttribute("aria-expanded", "true");
    (items().find((i) => i.dataset.scope === state.scope) || items()[0]).focus();
  }

  function closeMenu(refocus) {
    menu.hidden = true;
    chip.setAttribute("aria-expanded", "false");
    if (refocus) chip.focus();
  }

  chip.addEventListener("click", () => (menu.hidden ? openMenu() : closeMenu(true)));
  menu.addEventListener("keydown", (event) => {
    const all = items(), at = all.indexOf(document.activeElement);
    if (event.key === "Escape") { event.preventDefault(); closeMenu(true); }
    else if (event.key === "ArrowDown") { event.preventDefault(); all[(at + 1) % all.length].focus(); }
    else if (event.key === "ArrowUp") { event.preventDefault(); all[(at - 1 + all.length) % all.length].focus(); }
    else if (event.key === "Home") { event.preventDefault(); all[0].focus(); }
    else if (event.key === "End") { event.preventDefault(); all[all.length - 1].focus(); }
    else if (event.key === "Tab") closeMenu(false);
  });
  menu.addEventListener("click", (event) => {
    const item = event.target.closest("[data-scope]");
    if (item) choose(item.dataset.scope, item.dataset.label);
  });
  document.addEventListener("click", (event) => {
    if (!menu.hidden && !menu.contains(event.target) && event.target !== chip) closeMenu(false);
  });

  async function choose(scope, label) {
    closeMenu(true);
    if (conversationId === null) {  // a new conversation starts in the chosen scope
      Object.assign(state, { scope, label });
      renderChip(false);
      return;
    }
    const url = `/api/v1/conversations/${conversationId}?employee_id=${employeeId}`;
    const response = await fetch(url, { method: "PATCH", headers, credentials: "same-origin",
                                        body: JSON.stringify({ rag_scope: scope }) });
    if (!response.ok) return showError(await detailOf(response));
    const conversation = await response.json();
    Object.assign(state, { scope: conversation.rag_scope, label: conversation.rag_scope_label });
    renderChip(false);
  }

  // --- the chat ------------------------------------------------------------------------------------
  function element(tag, className, text) {
    const node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function showError(text) { errorBox.textContent = text; errorBox.hidden = false; }

  async function detailOf(response) {
    try {
      const body = await response.json();
      return Array.isArray(body.detail) ? body.detail.map((d) => d.msg).join("; ") : String(body.detail);
    } catch { return `HTTP ${response.status}`; }
  }

  const PREFIX = { task: "TASK", sprint: "SPRINT", project: "PROJECT", doc: "DOC" };
  const WHY = { timeout: "the model did not answer in time", unreachable: "the model could not be reached",
                bad_response: "the model's reply was unusable", ungrounded: "the model's answer cited nothing it was given" };

  // An entity's anchor as a link to the explainer's answer: can this employee see it, and why?
  function entityLink(sourceType, sourceId) {
    const link = element("a", null, `[${PREFIX[sourceType]} #${sourceId}]`);
    link.href = `/console/access?employee_id=${employeeId}&source_type=${sourceType}&source_id=${sourceId}`;
    link.title = "Why can they see it?";
    return link;
  }

  function citationLinks(citations) {
    const line = element("p", "cites", "Cited: ");
    for (const anchor of citations) {
      const found = /^\[(TASK|SPRINT|PROJECT|DOC) #(\d+)\]$/.exec(anchor);
      line.append(found ? entityLink(found[1].toLowerCase(), found[2]) : anchor, " ");
    }
    return line;
  }

  // What the answer was given (the done event's results: the employee's own, visible chunks).
  function givenList(results) {
    const box = element("details", "retrieved");
    box.append(element("summary", null, `Given ${results.length} chunk${results.length === 1 ? "" : "s"}`));
    const list = element("ol");
    for (const r of results) {
      const item = element("li");
      item.append(entityLink(r.source_type, r.source_id));
      if (r.chunk_ix) item.append(` (part ${r.chunk_ix + 1})`);
      list.append(item);
    }
    box.append(list);
    return box;
  }

  function failureNote(llmError) {
    return element("p", "note", `The model's answer was not used (${WHY[llmError] || llmError}): ` +
                                "the answer is quoted from the chunks.");
  }

  // Server-Sent Events from a fetch body: blocks end at a blank line; sse-starlette ends lines with CRLF.
  async function readEvents(body, onEvent) {
    const reader = body.getReader(), decoder = new TextDecoder();
    let raw = "", text = "";
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      raw += decoder.decode(value, { stream: true });
      const cut = raw.endsWith("\r") ? raw.length - 1 : raw.length;  // a CR may be half of a CRLF
      text += raw.slice(0, cut).replace(/\r\n?/g, "\n");
      raw = raw.slice(cut);
      let end;
      while ((end = text.indexOf("\n\n")) >= 0) {
        const block = text.slice(0, end);
        text = text.slice(end + 2);
        let name = "message", data = [];
        for (const line of block.split("\n")) {
          if (line.startsWith("event:")) name = line.slice(6).trim();
          else if (line.startsWith("data:")) data.push(line.slice(5).replace(/^ /, ""));
        }
        if (data.length) onEvent(name, JSON.parse(data.join("\n")));
      }
    }
  }

  async function ask(question) {
    errorBox.hidden = true;
    send.disabled = true;
    const turn = element("article", "turn");
    const answer = element("div", "msg assistant streaming");
    const answerText = element("p", "text");
    const user = element("p", "msg user");
    user.append(element("span", "who", "Question"), element("span", "text", question));
    answer.append(element("span", "who", "Answer"), answerText);
    turn.append(user, answer);
    transcript.append(turn);
    message.value = "";
    const request = { employee_id: employeeId, message: question };
    let pinning = false;
    if (conversationId !== null) request.conversation_id = conversationId;
    else {
      request.rag_scope = state.scope;
      pinning = !pinOption.hidden && pin.checked;
      if (pinning) request.pinned = true;
    }
    const handlers = {
      token: (data) => { answerText.textContent += data.text; },
      // The LLM failed mid-answer: what was shown is discarded; the extractive answer follows from its start.
      reset: (data) => {
        answerText.textContent = "";
        answer.append(failureNote(data.llm_error));
      },
      done: (data) => {
        answerText.textContent = data.answer;
        if (data.llm_error && !answer.querySelector(".note")) answer.append(failureNote(data.llm_error));
        if (data.citations.length) answer.append(citationLinks(data.citations));
        if (data.results.length) answer.append(givenList(data.results));
        const started = conversationId === null;
        conversationId = data.conversation_id;
        if (started) {
          state.pinned = pinning;
          history.replaceState(null, "", `/console/playground?employee_id=${employeeId}&conversation_id=${conversationId}`);
          const picker = $("conversation_id"), option = element("option", null, question);
          option.value = String(conversationId);
          picker.append(option);
          picker.value = option.value;
        }
        if (data.new_rag_scope) {
          Object.assign(state, { scope: data.new_rag_scope, label: data.new_rag_scope_label });
          renderChip(true);
        } else {
          Object.assign(state, { scope: data.rag_scope, label: data.rag_scope_label });
          renderChip(false);
        }
      },
      error: (data) => { throw new Error(data.detail); },
    };
    try {
      const response = await fetch("/api/v1/chat/stream", { method: "POST", headers, credentials: "same-origin",
                                                             body: JSON.stringify(request) });
      if (!response.ok) throw new Error(await detailOf(response));
      await readEvents(response.body, (name, data) => handlers[name] && handlers[name](data));
    } catch (error) {
      showError(error.message);
      if (!answerText.textContent) turn.remove();
    } finally {
      answer.classList.remove("streaming");
      send.disabled = false;
      message.focus();
    }
  }

  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const question = message.value.trim();
    if (question && !send.disabled) ask(question);
  });
  message.addEventListener("keydown", (event) => {
    if (event.key === "Enter" && !event.shiftKey) { event.preventDefault(); form.requestSubmit(); }
  });
  renderChip(false);
})();
