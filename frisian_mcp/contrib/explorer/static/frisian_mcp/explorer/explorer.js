/* frisian_mcp tool explorer: search as you type, details loaded when a tool
 * is opened, Validate / Run as tools/call requests, Read as resources/read
 * and Get as prompts/get, all to the endpoint with the session's CSRF token.
 * Plain JavaScript, no dependencies; without it the page still lists,
 * searches (on submit) and opens tools (by link).
 * Whatever the server sends back is shown as text, never as markup. */
"use strict";

(function () {
  const page = document.body.dataset;
  const PAGING = ["page", "page_size", "filters", "filter_keys", "continuation_token"];
  let nextId = 1;

  /* -- search ------------------------------------------------------------ */
  const search = document.getElementById("q");
  const count = document.getElementById("count");

  function filter() {
    const words = search.value.toLowerCase().split(/\s+/).filter(Boolean);
    let shown = 0;
    for (const item of document.querySelectorAll("li.tool")) {
      const hit = words.every((word) => item.dataset.search.includes(word));
      item.hidden = !hit;
      shown += hit ? 1 : 0;
    }
    for (const group of document.querySelectorAll("section.group")) {
      group.hidden = !group.querySelector("li.tool:not([hidden])");
    }
    const total = count.dataset.total;
    count.textContent = words.length ? `${shown} of ${total} tools` : `${total} tools`;
  }

  if (search) {
    search.addEventListener("input", filter);
    search.form.addEventListener("submit", (event) => {
      event.preventDefault();
      filter();
    });
  }

  /* -- opening a tool ----------------------------------------------------- */
  async function load(details) {
    const holder = details.querySelector(":scope > .body");
    if (!holder || holder.querySelector(".detail") || details.dataset.loading) return;
    details.dataset.loading = "1";
    const url = new URL(location.href);
    url.hash = "";
    url.search = new URLSearchParams({ tool: details.id, part: "detail" }).toString();
    try {
      const response = await fetch(url, {
        headers: { Accept: "text/html" },
        credentials: "same-origin",
        redirect: "manual",
      });
      if (response.type === "opaqueredirect") {
        say(holder, "Your session has ended: reload the page to log in again.");
      } else if (!response.ok) {
        say(holder, `This tool could not be loaded (HTTP ${response.status}).`);
      } else {
        // Our own origin's template output, escaped by Django's templates.
        holder.innerHTML = await response.text();
        wire(holder.querySelector(".detail"));
      }
    } catch (error) {
      say(holder, "This tool could not be loaded: the server did not answer.");
    } finally {
      delete details.dataset.loading;
    }
  }

  function say(holder, text) {
    const p = document.createElement("p");
    p.className = "failure";
    p.textContent = text;
    holder.replaceChildren(p);
  }

  function openFromHash() {
    const id = decodeURIComponent(location.hash.slice(1));
    const target = id && document.getElementById(id);
    const item = target && target.tagName === "DETAILS" && target.closest("li.tool, li.entry");
    if (!item) return;
    item.hidden = false;
    if (item.closest("section.group")) item.closest("section.group").hidden = false;
    target.open = true;
    target.scrollIntoView({ block: "start" });
    if (item.matches("li.tool")) load(target);
  }

  document.addEventListener(
    "toggle",
    (event) => {
      const details = event.target;
      if (!(details instanceof HTMLDetailsElement) || !details.closest("li.tool, li.entry")) return;
      if (details.parentElement.matches("li.tool, li.entry") && details.open) {
        history.replaceState(null, "", `#${details.id}`);
        if (details.parentElement.matches("li.tool")) load(details);
      }
    },
    true,
  );
  window.addEventListener("hashchange", openFromHash);

  /* -- a tool's form ------------------------------------------------------ */
  function wire(detail) {
    if (!detail || detail.dataset.wired) return;
    detail.dataset.wired = "1";
    const form = detail.querySelector("form.call");
    form.addEventListener("submit", (event) => event.preventDefault());
    form.addEventListener("click", (event) => {
      const button = event.target.closest("button");
      if (!button) return;
      if (button.matches(".add")) addItem(button.closest("fieldset"));
      else if (button.matches(".remove")) button.closest("li").remove();
      else if (button.matches(".validate")) start(detail, "validate");
      else if (button.matches(".run")) run(detail);
      else if (button.matches(".confirm-no")) hideConfirm(detail, true);
    });
    const raw = detail.querySelector("details.raw");
    raw.addEventListener("toggle", () => {
      if (!raw.open) return;
      try {
        const values = collect(form.querySelector(":scope > .kids"));
        if (Object.keys(values).length) {
          raw.querySelector("textarea").value = JSON.stringify(values, null, 2);
        }
      } catch (problem) {
        /* the JSON keeps what it held */
      }
    });
  }

  let items = 0;
  function addItem(fieldset) {
    const template = fieldset.querySelector(":scope > template.item");
    const clone = template.content.cloneNode(true);
    const suffix = `-i${++items}`;
    for (const element of clone.querySelectorAll("[id]")) element.id += suffix;
    for (const label of clone.querySelectorAll("label[for]")) label.htmlFor += suffix;
    for (const element of clone.querySelectorAll("[aria-describedby]")) {
      element.setAttribute("aria-describedby", element.getAttribute("aria-describedby") + suffix);
    }
    const item = document.createElement("li");
    item.append(clone);
    const remove = document.createElement("button");
    remove.type = "button";
    remove.className = "remove";
    remove.textContent = "Remove this item";
    item.append(remove);
    fieldset.querySelector(":scope > ol.items").append(item);
    const first = item.querySelector("input, select, textarea");
    if (first) first.focus();
  }

  class Problem extends Error {}

  function collect(kids) {
    const values = {};
    if (!kids) return values;
    for (const field of kids.querySelectorAll(":scope > .field")) {
      const value = valueOf(field);
      if (value !== undefined) values[field.dataset.name] = value;
    }
    return values;
  }

  function nonEmpty(object) {
    return Object.keys(object).length ? object : undefined;
  }

  function valueOf(field) {
    const control = field.querySelector(":scope > .value");
    const text = control ? control.value.trim() : "";
    switch (field.dataset.kind) {
      case "object":
        return nonEmpty(collect(field.querySelector(":scope > .kids")));
      case "ref":
        return text || nonEmpty(collect(field.querySelector(":scope > .kids")));
      case "array": {
        const values = [...field.querySelectorAll(":scope > ol.items > li > .field")]
          .map(valueOf)
          .filter((value) => value !== undefined);
        return values.length ? values : undefined;
      }
      case "multiple": {
        const values = [...control.selectedOptions].map((option) => JSON.parse(option.value));
        return values.length ? values : undefined;
      }
      case "enum":
        return text === "" ? undefined : JSON.parse(control.value);
      case "boolean":
        return text === "" ? undefined : text === "true";
      case "integer":
      case "number":
        return text === "" ? undefined : Number(text);
      case "json":
        if (text === "") return undefined;
        try {
          return JSON.parse(text);
        } catch (error) {
          throw new Problem(`${field.dataset.path}: this is not valid JSON.`);
        }
      default:
        return control.value === "" ? undefined : control.value;
    }
  }

  function argumentsOf(detail) {
    const raw = detail.querySelector("details.raw");
    if (!raw.open) return collect(detail.querySelector("form.call > .kids"));
    let parsed;
    try {
      parsed = JSON.parse(raw.querySelector("textarea").value || "{}");
    } catch (error) {
      throw new Problem("The arguments are not valid JSON.");
    }
    if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) {
      throw new Problem("The arguments must be a JSON object.");
    }
    return parsed;
  }

  /* -- Validate and Run ----------------------------------------------------- */
  function run(detail) {
    // A tool the server confirms (contrib.confirm) asks with its own
    // summary of what the call would do: asking here too would ask twice.
    if (!detail.hasAttribute("data-destructive") || detail.hasAttribute("data-server-confirms")) {
      start(detail, "execute");
      return;
    }
    askFirst(detail, detail.querySelector(".confirm-text").dataset.text, () =>
      start(detail, "execute"),
    );
  }

  function askFirst(detail, text, then) {
    const box = detail.querySelector(".confirm");
    const question = box.querySelector(".confirm-text");
    question.dataset.text = question.dataset.text || question.textContent;
    question.textContent = text || question.dataset.text;
    box.hidden = false;
    const yes = box.querySelector(".confirm-yes");
    yes.onclick = () => {
      hideConfirm(detail, false);
      then();
    };
    yes.focus();
  }

  function hideConfirm(detail, refocus) {
    detail.querySelector(".confirm").hidden = true;
    if (refocus) detail.querySelector("button.run").focus();
  }

  function start(detail, mode) {
    clearErrors(detail);
    let args;
    try {
      args = argumentsOf(detail);
    } catch (problem) {
      if (!(problem instanceof Problem)) throw problem;
      show(detail, "Not sent", problem.message);
      return;
    }
    if (mode === "validate") args.mode = "validate";
    send(detail, args);
  }

  async function send(detail, args) {
    detail.lastArguments = args;
    const route = JSON.parse(detail.dataset.route || "{}");
    const params = { name: detail.dataset.call, arguments: { ...route, ...args } };
    render(detail, await post(detail.querySelector(".outcome"), "tools/call", params));
  }

  /* One JSON-RPC request to the endpoint, as the session's person; the
     reply, or an error object when there is none. */
  async function post(outcome, method, params) {
    const body = { jsonrpc: "2.0", id: nextId++, method, params };
    if (outcome) outcome.setAttribute("aria-busy", "true");
    let reply;
    try {
      const response = await fetch(page.endpoint, {
        method: "POST",
        credentials: "same-origin",
        headers: {
          "Content-Type": "application/json",
          Accept: "application/json, text/event-stream",
          "MCP-Protocol-Version": "2025-11-25",
          [page.csrfHeader]: page.csrfToken,
        },
        body: JSON.stringify(body),
      });
      reply = await response.json().catch(() => ({
        error: { message: `The server answered HTTP ${response.status}, not JSON.` },
      }));
    } catch (error) {
      reply = { error: { message: "The server did not answer." } };
    }
    if (outcome) outcome.removeAttribute("aria-busy");
    return reply;
  }

  /* -- resources: Read -------------------------------------------------------- */
  function uriOf(reader) {
    return reader.dataset.uriTemplate.replace(/\{([^}]+)\}/g, (whole, name) => {
      const input = reader.querySelector(`input[data-variable="${CSS.escape(name)}"]`);
      const value = input ? input.value.trim() : "";
      if (!value) throw new Problem(`${name}: a value is required.`);
      return encodeURIComponent(value);
    });
  }

  async function read(reader) {
    let uri;
    try {
      uri = uriOf(reader);
    } catch (problem) {
      if (!(problem instanceof Problem)) throw problem;
      show(reader, "Not sent", problem.message);
      return;
    }
    const reply = await post(reader.querySelector(".outcome"), "resources/read", { uri });
    if (reply.error) {
      show(reader, "Refused", reply.error.message || "", reply.error.data || {});
      return;
    }
    const shown = ((reply.result && reply.result.contents) || []).map(contentOf);
    show(reader, "Result", uri, {}, shown.length === 1 ? shown[0] : shown);
  }

  function contentOf(content) {
    if (typeof content.blob === "string") {
      return { ...content, blob: `(${content.blob.length} characters of base64)` };
    }
    try {
      return content.mimeType === "application/json" ? JSON.parse(content.text) : content.text;
    } catch (problem) {
      return content.text;
    }
  }

  /* -- prompts: Get ----------------------------------------------------------- */
  async function getPrompt(reader) {
    const args = {};
    for (const control of reader.querySelectorAll("[data-argument]")) {
      if (control.value !== "") args[control.dataset.argument] = control.value;
    }
    clearErrors(reader);
    const params = { name: reader.dataset.prompt, arguments: args };
    const reply = await post(reader.querySelector(".outcome"), "prompts/get", params);
    if (reply.error) {
      const data = { ...(reply.error.data || {}) };
      if (typeof data.argument === "string") data.field = data.argument;
      show(reader, "Refused", reply.error.message || "", data);
      return;
    }
    const result = reply.result || {};
    show(reader, "Result", result.description || "");
    for (const message of result.messages || []) {
      const content = message.content || {};
      const text = content.type === "text" ? content.text : JSON.stringify(content, null, 2);
      reader.querySelector(".outcome").append(element("h4", message.role), element("pre", text));
    }
  }

  /* Values for what is typed, from completion/complete, as suggestions. */
  let completing;
  async function complete(input) {
    const reader = input.closest(".reader");
    const key = reader.dataset.prompt ? "argument" : "variable";
    const others = {};
    for (const other of reader.querySelectorAll(`[data-${key}]`)) {
      if (other !== input && other.value.trim()) others[other.dataset[key]] = other.value.trim();
    }
    const ref = reader.dataset.prompt
      ? { type: "ref/prompt", name: reader.dataset.prompt }
      : { type: "ref/resource", uri: reader.dataset.uriTemplate };
    const reply = await post(null, "completion/complete", {
      ref,
      argument: { name: input.dataset[key], value: input.value },
      context: { arguments: others },
    });
    const values = (reply.result && reply.result.completion && reply.result.completion.values) || [];
    const list = document.getElementById(input.getAttribute("list"));
    if (list) list.replaceChildren(...values.map((value) => new Option(String(value))));
  }

  document.addEventListener("submit", (event) => {
    const reader = event.target.closest(".reader");
    if (!reader) return;
    event.preventDefault();
    if (reader.dataset.prompt) getPrompt(reader);
    else read(reader);
  });
  document.addEventListener("input", (event) => {
    if (!event.target.matches(".reader input[list]")) return;
    clearTimeout(completing);
    completing = setTimeout(() => complete(event.target), 250);
  });

  /* -- showing the reply ---------------------------------------------------- */
  function render(detail, reply) {
    const result = reply.result || {};
    const structured = result.structuredContent;
    const error = reply.error;
    const failed = result.isError ? toolError(result) : undefined;
    const data = (error && error.data) || failed || {};
    if (data.code === "confirmation_required" && typeof data.confirm === "string") {
      confirmOnServer(detail, data);
    } else if (error) {
      show(detail, error.code === -32602 ? "Invalid arguments" : "Refused", error.message, data);
    } else if (result.isError) {
      show(detail, "The tool answered with an error", data.message || "", data, { error: data });
    } else if (structured && structured.validation) {
      const valid = structured.validation.valid !== false;
      show(detail, valid ? "Valid: nothing was written" : "Not valid", "", {}, structured);
    } else {
      show(detail, "Result", "", {}, structured !== undefined ? structured : result.content);
      if (structured && typeof structured.next_token === "string") nextPage(detail, structured);
    }
  }

  /* An error result's JSON: its text, since a tool with an outputSchema
     sends no structuredContent with an error (ADR 0038). */
  function toolError(result) {
    if (result.structuredContent && result.structuredContent.error) return result.structuredContent.error;
    const text = (result.content || []).find((block) => block && block.type === "text");
    try {
      const parsed = JSON.parse(text ? text.text : "");
      return (parsed && parsed.error) || {};
    } catch (problem) {
      return { message: text ? text.text : "" };
    }
  }

  function confirmOnServer(detail, data) {
    show(detail, "The server asks for a confirmation", data.message || "", data);
    const args = { ...detail.lastArguments, confirm: data.confirm };
    askFirst(detail, data.message || "Confirm this call?", () => send(detail, args));
  }

  function show(detail, heading, message, data = {}, value) {
    const outcome = detail.querySelector(".outcome");
    const parts = [element("h3", heading)];
    if (message) parts.push(element("p", message));
    const fields = data.fields || (data.field ? [{ field: data.field, message: message }] : []);
    if (fields.length) {
      const list = element("ul", "");
      list.className = "field-errors";
      for (const entry of fields) {
        const text = `${entry.field}: ${entry.message || entry.code || "invalid"}`;
        list.append(element("li", text));
        markField(detail, String(entry.field || ""), entry.message || entry.code || "invalid");
      }
      parts.push(list);
    }
    if (data.hint) parts.push(element("p", data.hint));
    if (value !== undefined) parts.push(element("pre", JSON.stringify(value, null, 2)));
    outcome.className = `outcome ${heading === "Result" || heading.startsWith("Valid:") ? "ok" : "bad"}`;
    outcome.replaceChildren(...parts);
  }

  function element(tag, text) {
    const made = document.createElement(tag);
    made.textContent = text;
    return made;
  }

  function nextPage(detail, structured) {
    const button = element("button", "Next page");
    button.type = "button";
    button.className = "next";
    button.addEventListener("click", () => {
      const args = { ...detail.lastArguments };
      for (const key of PAGING) delete args[key];
      args.continuation_token = structured.next_token;
      send(detail, args);
    });
    detail.querySelector(".outcome").append(button);
  }

  function markField(detail, path, message) {
    // "items[2].email" lands on the deepest field the form has for it.
    for (let candidate = path; candidate; ) {
      const field = detail.querySelector(`.field[data-path="${CSS.escape(candidate)}"]`);
      if (field) {
        const slot = field.querySelector(":scope > .error");
        slot.textContent = message;
        slot.hidden = false;
        const control = field.querySelector(":scope > .value");
        if (control) control.setAttribute("aria-invalid", "true");
        return;
      }
      const shorter = candidate.replace(/(\.[^.[\]]*|\[[^\]]*\])$/, "");
      if (shorter === candidate) return;
      candidate = shorter;
    }
  }

  function clearErrors(detail) {
    for (const slot of detail.querySelectorAll(".field > .error")) {
      slot.hidden = true;
      slot.textContent = "";
    }
    for (const control of detail.querySelectorAll("[aria-invalid]")) {
      control.removeAttribute("aria-invalid");
    }
  }

  /* -- copy buttons ----------------------------------------------------------- */
  for (const snippet of document.querySelectorAll("pre.snippet")) {
    const button = element("button", "Copy");
    button.type = "button";
    button.className = "copy";
    button.addEventListener("click", async () => {
      try {
        await navigator.clipboard.writeText(snippet.textContent);
        button.textContent = "Copied";
      } catch (error) {
        getSelection().selectAllChildren(snippet);
        button.textContent = "Selected: copy with the keyboard";
      }
    });
    snippet.after(button);
  }

  for (const detail of document.querySelectorAll(".detail")) wire(detail);
  if (search && search.value) filter();
  openFromHash();
})();
