// The dashboard's only script (served from the binary; the page's CSP allows no other): it keeps the
// tables live by re-fetching them, server-rendered, whenever the stream says something changed, and
// sends the action buttons' forms with fetch so that the page is not reloaded. Without it the page
// still works: the forms post and come back to the page.
"use strict";
(function () {
  const key = document.body.dataset.publicKey;
  const q = "?public_key=" + encodeURIComponent(key);
  const tables = document.getElementById("tables");
  const live = document.getElementById("live");
  const message = document.getElementById("message");

  // One fetch at a time; changes during a fetch cause exactly one more.
  let busy = false, again = false;
  async function refresh() {
    if (busy) { again = true; return; }
    busy = true;
    try {
      do {
        again = false;
        const r = await fetch("tables" + q, { cache: "no-store" });
        if (!r.ok) { say(false, "refresh failed: " + r.status + " " + (await r.text())); break; }
        swap(await r.text());
      } while (again);
    } catch (e) {
      say(false, "refresh failed: " + e);
    } finally {
      busy = false;
    }
  }

  // swap replaces the tables, keeping the failure reasons a person has chosen but not yet sent and
  // the requests they opened.
  function swap(html) {
    const kept = {};
    tables.querySelectorAll("select[data-keep]").forEach((s) => { kept[s.dataset.keep] = s.value; });
    const open = new Set();
    tables.querySelectorAll("details[data-keep][open]").forEach((d) => open.add(d.dataset.keep));
    tables.innerHTML = html; // rendered by html/template on the server: escaped
    tables.querySelectorAll("select[data-keep]").forEach((s) => {
      if (kept[s.dataset.keep]) s.value = kept[s.dataset.keep];
    });
    tables.querySelectorAll("details[data-keep]").forEach((d) => { d.open = open.has(d.dataset.keep); });
  }

  function say(ok, text) {
    message.textContent = text;
    message.className = ok ? "ok" : "bad";
  }

  function setLive(state, text) {
    live.dataset.state = state;
    live.textContent = text;
  }

  const stream = new EventSource("stream" + q);
  stream.onopen = () => { setLive("live", "live"); refresh(); }; // after a reconnection: catch up
  stream.onmessage = () => refresh();
  stream.onerror = () => setLive("reconnecting", "reconnecting…");

  document.addEventListener("submit", async (e) => {
    const form = e.target;
    if (!form.matches("form.action")) return;
    e.preventDefault();
    const body = new URLSearchParams(new FormData(form, e.submitter));
    form.querySelectorAll("button").forEach((b) => { b.disabled = true; });
    try {
      const r = await fetch(form.getAttribute("action"), { method: "POST", body, headers: { Accept: "application/json" } });
      const out = await r.json().catch(() => ({ ok: false, message: "the dashboard answered " + r.status }));
      say(out.ok, out.message);
    } catch (err) {
      say(false, "the sandbox did not answer: " + err);
    } finally {
      form.querySelectorAll("button").forEach((b) => { b.disabled = false; });
      refresh();
    }
  });

  document.getElementById("merchant").addEventListener("change", (e) => {
    window.location.search = "?public_key=" + encodeURIComponent(e.target.value);
  });
})();
