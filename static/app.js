// Hearts page behaviour: passing selection, playback of the computer players' moves,
// announcements for screen readers, fast play.  The server decides everything shown;
// this file only chooses *when* to show it.
(function () {
  "use strict";

  const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

  function announce(text) {
    const region = document.getElementById("announcer");
    if (!region || !text) return;
    const p = document.createElement("p");
    p.textContent = text;
    region.appendChild(p);
    while (region.childElementCount > 6) region.firstElementChild.remove();
  }

  function pauseFor(kind) {
    let pauses = {};
    try { pauses = JSON.parse(document.body.dataset.pauses || "{}"); } catch (e) { pauses = {}; }
    const speed = document.body.dataset.fast === "1" ? "fast" : "normal";
    return (pauses[speed] && pauses[speed][kind]) || 0;
  }

  function applyDeferred(table) {
    table.querySelectorAll("template.deferred").forEach((tpl) => {
      const target = document.getElementById(tpl.dataset.target);
      const fresh = tpl.content.firstElementChild;
      if (target && fresh) {
        target.replaceWith(fresh);
        if (window.htmx) window.htmx.process(fresh);
      }
      tpl.remove();
    });
  }

  // The table arrives with its final state hidden and the first moment of the playback
  // showing.  The hand cannot be clicked until the last frame has played, and the forms
  // carry the game's version, so a click can neither be lost nor applied twice.
  async function play(table) {
    if (table.dataset.played === "1") return;
    table.dataset.played = "1";
    const frames = Array.from(table.querySelectorAll(":scope > template.frame"));
    const stage = table.querySelector(":scope > .stage");
    const playback = table.querySelector(":scope > .playback");
    if (frames.length && stage && playback) {
      document.body.dataset.playing = "1";
      table.setAttribute("aria-busy", "true");
      for (let i = 0; i < frames.length; i++) {
        if (!table.isConnected) return;
        if (i > 0) playback.replaceChildren(frames[i].content.cloneNode(true));
        announce(frames[i].dataset.say);
        await sleep(pauseFor(frames[i].dataset.pause));
      }
      if (!table.isConnected) return;
      playback.remove();
      stage.hidden = false;
      table.classList.remove("is-playing");
      table.removeAttribute("aria-busy");
    }
    frames.forEach((f) => f.remove());
    applyDeferred(table);
    delete document.body.dataset.playing;
    announce(table.dataset.say);
    focusHand(table);
  }

  function focusHand(table) {
    const active = document.activeElement;
    const focusWasHere = !active || active === document.body || table.contains(active) || !active.isConnected;
    if (!focusWasHere) return;
    const next = table.querySelector(".result [autofocus], .result button, .hand-form[data-mode=play] .in-hand:not(:disabled), .hand-form[data-mode=pass] .in-hand");
    if (next && table.dataset.initial !== "1") next.focus({ preventScroll: true });
  }

  // ---- passing: choose exactly three ----
  function updatePass(form) {
    const chosen = Array.from(form.querySelectorAll(".in-hand[aria-pressed=true]"));
    form.querySelectorAll("input[name=cards]").forEach((i) => i.remove());
    chosen.forEach((btn) => {
      const input = document.createElement("input");
      input.type = "hidden"; input.name = "cards"; input.value = btn.dataset.select;
      form.appendChild(input);
    });
    const submit = form.querySelector("[data-pass-submit]");
    if (submit) submit.disabled = chosen.length !== 3;
    const count = form.querySelector("[data-pass-count]");
    if (count) count.textContent = chosen.length === 3 ? "Ready to pass" : `Choose ${3 - chosen.length} more card${3 - chosen.length === 1 ? "" : "s"}`;
  }

  document.addEventListener("click", (event) => {
    const card = event.target.closest(".hand-form[data-mode=pass] .in-hand");
    if (card) {
      const form = card.closest("form");
      const pressed = card.getAttribute("aria-pressed") === "true";
      const chosen = form.querySelectorAll(".in-hand[aria-pressed=true]").length;
      if (pressed || chosen < 3) card.setAttribute("aria-pressed", pressed ? "false" : "true");
      updatePass(form);
      return;
    }
    const copy = event.target.closest("[data-copy]");
    if (copy) {
      const field = document.querySelector(copy.dataset.copy);
      if (field) {
        field.select();
        (navigator.clipboard ? navigator.clipboard.writeText(field.value) : Promise.reject()).then(
          () => { copy.textContent = "Copied"; announce("The embed code is copied."); },
          () => { document.execCommand && document.execCommand("copy"); });
      }
    }
  });

  // A form is never sent twice: the first submission marks it and disables its buttons.
  document.addEventListener("htmx:beforeRequest", (event) => {
    const form = event.detail.elt.closest && event.detail.elt.closest(".hand-form, .result form");
    if (!form) return;
    if (form.dataset.sent === "1" || document.body.dataset.playing === "1") { event.preventDefault(); return; }
    form.dataset.sent = "1";
    form.closest(".table")?.setAttribute("aria-busy", "true");
  });

  // ---- keyboard: arrows jump between suits in the hand; letters read the table aloud ----
  const SUITS = { C: "clubs", D: "diamonds", S: "spades", H: "hearts" };
  const suitOf = (el) => (el.dataset.card || "").slice(-1);

  function tableCards() {
    return Array.from(document.querySelectorAll("#table > .stage .center .on-table"));
  }

  function readAloud(key) {
    const table = document.getElementById("table");
    if (!table) return false;
    const cards = tableCards();
    if (key === "c") {
      announce(cards.length ? cards.map((c) => c.querySelector(".visually-hidden").textContent).join(", ") : "No cards on the table.");
    } else if (/^[1-6]$/.test(key)) {
      const card = cards[Number(key) - 1];
      announce(card ? card.querySelector(".visually-hidden").textContent : `There is no card ${key} on the table.`);
    } else if (key === "f") {
      announce(cards.length ? `The suit led is ${SUITS[suitOf(cards[0])]}.` : "No suit has been led in this trick.");
    } else if (key === "s") {
      const heads = Array.from(document.querySelectorAll("#sheet thead th")).slice(1).map((th) => th.textContent.trim());
      const totals = Array.from(document.querySelectorAll("#sheet tfoot td")).map((td) => td.textContent.trim());
      announce("Scores: " + heads.map((h, i) => `${h} ${totals[i]}`).join(", ") + ".");
    } else if (key === "t") {
      const status = document.getElementById("status");
      announce(status && status.textContent.trim() ? status.textContent.trim() : "Please wait.");
    } else {
      return false;
    }
    return true;
  }

  document.addEventListener("keydown", (event) => {
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    const t = event.target;
    if (t.closest && t.closest("input, select, textarea, [contenteditable]")) return;
    const card = t.closest && t.closest(".in-hand");
    if (card && (event.key === "ArrowLeft" || event.key === "ArrowRight")) {
      const cards = Array.from(card.closest(".hand").querySelectorAll(".in-hand:not(:disabled)"));
      if (!cards.length) return;
      const here = cards.indexOf(card);
      const suit = suitOf(card);
      let target;
      if (event.key === "ArrowRight") {
        target = cards.slice(here + 1).find((c) => suitOf(c) !== suit) || cards[cards.length - 1];
      } else {
        const before = cards.slice(0, here).reverse();
        const prevSuitCard = before.find((c) => suitOf(c) !== suit);
        target = prevSuitCard ? cards.find((c) => suitOf(c) === suitOf(prevSuitCard)) : cards[0];
      }
      target.focus();
      event.preventDefault();
      return;
    }
    if (readAloud(event.key.toLowerCase())) event.preventDefault();
  });

  document.addEventListener("change", (event) => {
    if (event.target.matches("[data-fast-toggle]")) {
      document.body.dataset.fast = event.target.checked ? "1" : "0";
      document.querySelectorAll("[data-fast-toggle]").forEach((box) => { box.checked = event.target.checked; });
    }
  });

  // A lost connection must not leave the hand locked: fetch the table as the server has it.
  function reloadTable(message) {
    const table = document.getElementById("table");
    if (!table || !window.htmx) return;
    announce(message);
    window.htmx.ajax("GET", "/table" + (table.dataset.embed === "1" ? "?embed=true" : ""),
      { target: "#table", swap: "outerHTML" });
  }
  document.addEventListener("htmx:sendError", () => reloadTable("The connection was lost; showing the game as it was saved."));
  document.addEventListener("htmx:responseError", () => reloadTable("Something went wrong; showing the game as it was saved."));

  document.addEventListener("htmx:afterSwap", () => {
    const table = document.getElementById("table");
    if (table) play(table);
  });

  document.addEventListener("DOMContentLoaded", () => {
    const table = document.getElementById("table");
    if (table) { table.dataset.initial = "1"; play(table); delete table.dataset.initial; }
  });
})();
