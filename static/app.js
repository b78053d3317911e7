// Hearts page behaviour: passing selection, playback of the computer players' moves,
// keyboard play, announcements for screen readers, fast play.  The server decides
// everything shown and writes every sentence (in the page's language); this file only
// chooses *when* to show or say it.
(function () {
  "use strict";

  const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

  // ---- the page's words, passed by the template (data-i18n on <body>) ----
  let words = null;
  function t(key, values) {
    if (!words) {
      try { words = JSON.parse(document.body.dataset.i18n || "{}"); } catch (e) { words = {}; }
    }
    const text = words[key] || key;
    return text.replace(/%\((\w+)\)s/g, (m, name) => (values && name in values ? String(values[name]) : m));
  }

  // ---- speaking: one polite region for the game, one assertive region for errors ----
  // Messages are queued and added one at a time, each as its own paragraph, so two that
  // arrive together are both read: replacing the text would cut the first one off.
  const queue = [];
  let speaking = false;
  const GAP_MS = 120;

  async function drain() {
    if (speaking) return;
    speaking = true;
    while (queue.length) {
      const region = document.getElementById("announcer");
      const text = queue.shift();
      if (region) {
        const p = document.createElement("p");
        p.textContent = text;
        region.appendChild(p);
        while (region.childElementCount > 12) region.firstElementChild.remove();
      }
      await sleep(GAP_MS);
    }
    speaking = false;
  }

  function announce(text) {
    if (!text) return;
    queue.push(text);
    drain();
  }

  function alertNow(text) {
    const region = document.getElementById("alerts");
    if (!region || !text) return;
    // emptied first, so the same error said twice is said again
    region.textContent = "";
    setTimeout(() => { region.textContent = text; }, 50);
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
    const error = table.querySelector("[data-alert]");
    if (error) alertNow(error.textContent.trim());
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
    setupHand(table);
    delete document.body.dataset.playing;
    announce(table.dataset.say);
    focusHand(table);
  }

  // ---- the hand: one tab stop (roving tabindex) ----
  let lastCard = null;  // the card that had focus, so a new table keeps the place in the hand

  function handCards(root) {
    const hand = (root || document).querySelector("#table > .stage .hand");
    return hand ? Array.from(hand.querySelectorAll(".in-hand:not(:disabled)")) : [];
  }

  function setCurrent(cards, card) {
    cards.forEach((c) => { c.tabIndex = c === card ? 0 : -1; });
  }

  function setupHand(table) {
    const cards = handCards(table);
    if (!cards.length) return;
    const keep = cards.find((c) => c.dataset.card === lastCard);
    setCurrent(cards, keep || cards[0]);
  }

  function focusHand(table) {
    const active = document.activeElement;
    const focusWasHere = !active || active === document.body || table.contains(active) || !active.isConnected;
    if (!focusWasHere || table.dataset.initial === "1") return;
    const result = table.querySelector(":scope > .stage .result [autofocus], :scope > .stage .result button");
    const card = handCards(table).find((c) => c.tabIndex === 0);
    const next = result || card;
    if (next) next.focus({ preventScroll: true });
  }

  document.addEventListener("focusin", (event) => {
    const card = event.target.closest && event.target.closest("#table > .stage .in-hand");
    if (!card) return;
    lastCard = card.dataset.card;
    setCurrent(handCards(), card);
  });

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
    const left = 3 - chosen.length;
    if (count) count.textContent = left === 0 ? t("ready") : left === 1 ? t("choose_1") : t("choose_n", { n: left });
    return chosen.length;
  }

  document.addEventListener("click", (event) => {
    const card = event.target.closest(".hand-form[data-mode=pass] .in-hand");
    if (card) {
      const form = card.closest("form");
      const pressed = card.getAttribute("aria-pressed") === "true";
      const chosen = form.querySelectorAll(".in-hand[aria-pressed=true]").length;
      const name = card.getAttribute("aria-label");
      if (pressed || chosen < 3) {
        card.setAttribute("aria-pressed", pressed ? "false" : "true");
        const n = updatePass(form);
        announce(pressed ? t("unselected", { card: name }) : t("selected", { card: name, n: n }));
      } else {
        announce(t("pass_full"));
      }
      return;
    }
    const copy = event.target.closest("[data-copy]");
    if (copy) {
      const field = document.querySelector(copy.dataset.copy);
      if (field) {
        field.select();
        (navigator.clipboard ? navigator.clipboard.writeText(field.value) : Promise.reject()).then(
          () => { copy.textContent = t("copied"); announce(t("copied_say")); },
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

  // ---- keyboard ----
  const suitOf = (el) => (el.dataset.card || "").slice(-1);

  // what the table shows now: the playback's moment while it runs, else the final table
  function shownFelt() {
    return document.querySelector("#table > .playback .felt") || document.querySelector("#table > .stage .felt");
  }

  function tableCards() {
    const felt = shownFelt();
    return felt ? Array.from(felt.querySelectorAll(".center .on-table")) : [];
  }

  const cardSay = (c) => c.querySelector(".visually-hidden").textContent.trim();

  function readAloud(key) {
    if (!document.getElementById("table")) return false;
    const cards = tableCards();
    const felt = shownFelt();
    if (key === "c") {
      announce(cards.length ? cards.map(cardSay).join(", ") + "." : t("no_cards"));
    } else if (/^[1-6]$/.test(key)) {
      const card = cards[Number(key) - 1];
      announce(card ? cardSay(card) : t("no_card_n", { n: key }));
    } else if (key === "f") {
      announce(cards.length ? t("suit_led", { suit: t("suit_" + suitOf(cards[0])) }) : t("no_suit_led"));
    } else if (key === "s") {
      announce(felt && felt.dataset.sayScores ? felt.dataset.sayScores : t("wait"));
    } else if (key === "l") {
      announce(felt && felt.dataset.sayLast ? felt.dataset.sayLast : t("wait"));
    } else if (key === "r") {
      const form = document.querySelector("#table > .stage .hand-form");
      announce(form && form.dataset.sayHand && document.body.dataset.playing !== "1" ? form.dataset.sayHand : t("wait"));
    } else if (key === "t") {
      const status = document.body.dataset.playing === "1" ? null : document.getElementById("status");
      announce(status && status.textContent.trim() ? status.textContent.trim() : t("wait"));
    } else if (key === "h") {
      announce(t("help"));
    } else {
      return false;
    }
    return true;
  }

  function moveInHand(card, key) {
    const cards = handCards();
    const here = cards.indexOf(card);
    if (here < 0 || !cards.length) return null;
    const suit = suitOf(card);
    if (key === "Home") return cards[0];
    if (key === "End") return cards[cards.length - 1];
    if (key === "ArrowDown") return cards[Math.min(here + 1, cards.length - 1)];
    if (key === "ArrowUp") return cards[Math.max(here - 1, 0)];
    if (key === "ArrowRight") return cards.slice(here + 1).find((c) => suitOf(c) !== suit) || cards[cards.length - 1];
    if (key === "ArrowLeft") {
      const prevSuitCard = cards.slice(0, here).reverse().find((c) => suitOf(c) !== suit);
      return prevSuitCard ? cards.find((c) => suitOf(c) === suitOf(prevSuitCard)) : cards[0];
    }
    return null;
  }

  document.addEventListener("keydown", (event) => {
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    const target = event.target;
    if (target.closest && target.closest("input, select, textarea, [contenteditable]:not([contenteditable=false])")) return;
    const card = target.closest && target.closest("#table > .stage .in-hand");
    if (card) {
      const next = moveInHand(card, event.key);
      if (next) {
        next.focus();
        event.preventDefault();
        return;
      }
    }
    if (event.key === "Enter") {
      // Enter on a card or button is the browser's own; elsewhere it starts the game
      if (target.closest && target.closest("button, a, summary, [tabindex]:not([tabindex='-1'])")) return;
      const start = document.querySelector("#table > .stage [data-start]");
      if (start && document.body.dataset.playing !== "1") { start.click(); event.preventDefault(); }
      return;
    }
    if (event.key.length === 1 && readAloud(event.key.toLowerCase())) event.preventDefault();
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
    alertNow(message);
    const url = (document.body.dataset.tableUrl || "/table") + (table.dataset.embed === "1" ? "?embed=true" : "");
    window.htmx.ajax("GET", url, { target: "#table", swap: "outerHTML" });
  }
  document.addEventListener("htmx:sendError", () => reloadTable(t("lost")));
  document.addEventListener("htmx:responseError", () => reloadTable(t("failed")));

  document.addEventListener("htmx:afterSwap", () => {
    const table = document.getElementById("table");
    if (table) play(table);
  });

  document.addEventListener("DOMContentLoaded", () => {
    const table = document.getElementById("table");
    if (table) { table.dataset.initial = "1"; play(table); delete table.dataset.initial; }
  });
})();
