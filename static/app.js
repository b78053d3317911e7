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

  // Arrow keys move along the hand; Home/End jump to its ends.
  document.addEventListener("keydown", (event) => {
    const card = event.target.closest && event.target.closest(".in-hand");
    if (!card || !["ArrowLeft", "ArrowRight", "Home", "End"].includes(event.key)) return;
    const cards = Array.from(card.closest(".hand").querySelectorAll(".in-hand:not(:disabled)"));
    if (!cards.length) return;
    let i = cards.indexOf(card);
    if (event.key === "ArrowRight") i = Math.min(cards.length - 1, i + 1);
    if (event.key === "ArrowLeft") i = Math.max(0, i - 1);
    if (event.key === "Home") i = 0;
    if (event.key === "End") i = cards.length - 1;
    cards[i].focus();
    event.preventDefault();
  });

  document.addEventListener("change", (event) => {
    if (event.target.matches("[data-fast-toggle]")) {
      document.body.dataset.fast = event.target.checked ? "1" : "0";
      document.querySelectorAll("[data-fast-toggle]").forEach((box) => { box.checked = event.target.checked; });
    }
  });

  document.addEventListener("htmx:afterSwap", () => {
    const table = document.getElementById("table");
    if (table) play(table);
  });

  document.addEventListener("DOMContentLoaded", () => {
    const table = document.getElementById("table");
    if (table) { table.dataset.initial = "1"; play(table); delete table.dataset.initial; }
  });
})();
