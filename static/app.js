// Hearts page behaviour: passing selection, playback of the computer players' moves,
// keyboard play, announcements for screen readers, dialogs, and staying calm when the
// connection drops.  The server decides everything shown and writes every sentence (in
// the page's language); this file only chooses *when* to show or say it.
(function () {
  "use strict";

  const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
  const motion = () => !window.matchMedia("(prefers-reduced-motion: reduce)").matches;

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

  // What a reading key says is also shown for a moment, for people who see the screen; so is
  // a refused action's message, which in the page's flow would push the hand down the screen.
  let toastTimer = 0;
  function showBriefly(text, error) {
    const toast = document.getElementById("toast");
    if (!toast || !text) return;
    toast.textContent = text;
    toast.classList.toggle("error", !!error);
    toast.hidden = false;
    clearTimeout(toastTimer);
    const ms = Math.min(9000, 2500 + text.length * 45) + (error ? 3000 : 0);
    toastTimer = setTimeout(() => { toast.hidden = true; }, ms);
  }
  document.documentElement.classList.add("js");

  function pauseFor(kind) {
    let pauses = {};
    try { pauses = JSON.parse(document.body.dataset.pauses || "{}"); } catch (e) { pauses = {}; }
    const speed = document.body.dataset.fast === "1" ? "fast" : "normal";
    return (pauses[speed] && pauses[speed][kind]) || 0;
  }

  // The one place where the page needs script for what the server sends: the side panels'
  // updates (score sheet, tricks, records) come with the answer as out-of-band swaps, held
  // back in <template class="deferred"> until the playback has shown what led to them, then
  // swapped by htmx as the template says (data-target, data-swap: a panel, or trick lines
  // added to the list).  Applied at once they would tell a trick's winner before the table.
  function applyDeferred(table) {
    table.querySelectorAll("template.deferred").forEach((tpl) => {
      const target = document.querySelector(tpl.dataset.target);
      if (target && window.htmx) {
        window.htmx.swap(target, tpl.content, { swapStyle: tpl.dataset.swap || "outerHTML", ignoreTitle: true });
      }
      tpl.remove();
    });
  }

  // ---- the playback: the moments after an action, each sent as the parts it changes ----
  // They are played on a copy of the table the person acted on (data-base "previous"), or of
  // the final one for a new deal, that shows no result and no controls, its hand waiting, as
  // the table looked while the computer players moved.
  const FORM_ATTRIBUTES = ["action", "method", "hx-post", "hx-target", "hx-swap", "hx-sync", "hx-disabled-elt"];
  function makePlayback(source, stage) {
    const playback = document.createElement("div");
    playback.className = "playback";
    playback.setAttribute("aria-hidden", "true");
    source.childNodes.forEach((node) => playback.appendChild(node.cloneNode(true)));
    if (source !== stage) {
      // the person's cards do not change while the others move: the final hand, waiting
      const hand = playback.querySelector(".hand");
      const fresh = stage.querySelector(".hand");
      if (hand && fresh) hand.replaceWith(fresh.cloneNode(true));
    }
    playback.querySelectorAll(".result, .moon-party, .pass-bar, .veil, input[type=hidden]").forEach((el) => el.remove());
    playback.querySelectorAll("[id]").forEach((el) => el.removeAttribute("id"));
    playback.querySelectorAll(".hand-form").forEach((form) => {
      form.dataset.mode = "wait";
      FORM_ATTRIBUTES.forEach((name) => form.removeAttribute(name));
    });
    playback.querySelectorAll(".in-hand").forEach((card) => {
      card.classList.remove("illegal");
      card.classList.add("waiting");
      card.type = "button";
      card.disabled = true;
      ["name", "value", "aria-pressed", "data-select"].forEach((name) => card.removeAttribute(name));
    });
    stage.after(playback);
    return playback;
  }

  // a moment: each part it sends (data-part) takes the place of the one shown until then
  function applyFrame(playback, content) {
    const felt = playback.querySelector(".felt");
    Array.from(content.children).forEach((part) => {
      const key = part.dataset.part;
      if (key === "felt") {
        if (felt) ["phase", "sayLast", "sayScores"].forEach((name) => { felt.dataset[name] = part.dataset[name]; });
        return;
      }
      const shown = playback.querySelector(`[data-part="${key}"]`);
      if (!shown) return;
      if (part.hasAttribute("data-add")) {
        // cards played to the trick under way, added to it (with its end: data-done, the winner)
        shown.append(...Array.from(part.children, (el) => el.cloneNode(true)));
        ["done", "winner"].forEach((name) => { if (name in part.dataset) shown.dataset[name] = part.dataset[name]; });
      } else {
        shown.replaceWith(part.cloneNode(true));
      }
    });
  }

  // ---- a pause of the playback that a tap anywhere cuts short (true when it was) ----
  let skip = null;
  function pause(ms) {
    if (ms <= 0) return Promise.resolve(false);
    return new Promise((resolve) => {
      const timer = setTimeout(() => done(false), ms);
      function done(tapped) { clearTimeout(timer); skip = null; resolve(tapped); }
      skip = () => done(true);
    });
  }
  document.addEventListener("pointerdown", () => { if (skip) skip(); }, true);

  // ---- cards travel: from the player to the trick, from the trick to its winner ----
  // Only transforms and opacity are animated, so the compositor does the work.
  const SLIDE_MS = 200;
  const GATHER_MS = 280;

  function middle(el) {
    const r = el.getBoundingClientRect();
    return { x: r.left + r.width / 2, y: r.top + r.height / 2 };
  }

  function plateOf(felt, seat) {
    return felt.querySelector(`.seat[data-seat="${seat}"] .plate`);
  }

  // the seat of the person looking at this table (any seat can be theirs)
  function mySeat(felt) {
    const me = felt.querySelector(".seat.me");
    return me ? Number(me.dataset.seat) : -1;
  }

  function trickKeys(felt) {
    return felt ? Array.from(felt.querySelectorAll(".center .on-table"), (c) => c.dataset.seat + ":" + c.dataset.card) : [];
  }

  function transformOf(el) {
    const value = getComputedStyle(el).transform;
    return value === "none" ? "" : value;
  }

  function slideIn(felt, before, played) {
    if (!felt || !motion()) return;
    felt.querySelectorAll(".center .on-table").forEach((card) => {
      if (before.includes(card.dataset.seat + ":" + card.dataset.card)) return;
      const seat = Number(card.dataset.seat);
      const plate = plateOf(felt, seat);
      const from = seat === mySeat(felt) && played && played.card === card.dataset.card ? played.point : plate && middle(plate);
      if (!from) return;
      const to = middle(card);
      const end = transformOf(card);
      card.animate([{ transform: `translate(${from.x - to.x}px, ${from.y - to.y}px) ${end} scale(.8)` },
                    { transform: end || "none" }], { duration: SLIDE_MS, easing: "cubic-bezier(.2, .7, .3, 1)" });
    });
  }

  async function gather(felt) {
    const caption = felt.querySelector(".trick-caption[data-winner]");
    const plate = caption && plateOf(felt, Number(caption.dataset.winner));
    if (!plate || !motion()) return;
    const to = middle(plate);
    const runs = Array.from(felt.querySelectorAll(".center .on-table"), (card) => {
      const from = middle(card);
      const start = transformOf(card);
      return card.animate([{ transform: start || "none", opacity: 1 },
                           { transform: `translate(${to.x - from.x}px, ${to.y - from.y}px) ${start} scale(.3)`, opacity: 0 }],
                          { duration: GATHER_MS, easing: "ease-in", fill: "forwards" }).finished.catch(() => {});
    });
    caption.animate([{ opacity: 1 }, { opacity: 0 }], { duration: GATHER_MS / 2, fill: "forwards" });
    await Promise.race([Promise.all(runs), sleep(GATHER_MS + 100)]);
  }

  // what the table showed just before an answer replaced it, and the card the person clicked
  let carried = null;
  let lastPlayed = null;

  // The table arrives with its final state hidden and the first moment of the playback
  // showing.  The hand cannot be clicked until the last frame has played, and the forms
  // carry the game's version, so a click can neither be lost nor applied twice.  The last
  // frame's hand is laid out as the final one, so no card moves under a waiting pointer.
  async function play(table) {
    if (table.dataset.played === "1") return;
    table.dataset.played = "1";
    const from = carried || { trick: [], played: null, dealt: false, stage: null };
    carried = null;
    const error = table.querySelector("[data-alert]");
    if (error) {
      alertNow(error.textContent.trim());
      showBriefly(error.textContent.trim(), true);
    }
    const frames = Array.from(table.querySelectorAll(":scope > template.frame"));
    const stage = table.querySelector(":scope > .stage");
    const source = table.dataset.base === "previous" ? from.stage : stage;
    // (with no table to start from, e.g. an answer that came in another way, the final one shows at once)
    const playback = frames.length && stage && source ? makePlayback(source, stage) : null;
    if (from.dealt) bringIntoView(table);
    if (playback) {
      document.body.dataset.playing = "1";
      table.setAttribute("aria-busy", "true");
      let before = from.trick;
      let tapped = false;
      for (let i = 0; i < frames.length; i++) {
        if (!table.isConnected) return;
        applyFrame(playback, frames[i].content);
        const felt = playback.querySelector(".felt");
        slideIn(felt, before, from.played);
        before = trickKeys(felt);
        announce(frames[i].dataset.say);
        const ms = pauseFor(frames[i].dataset.pause);
        if (felt && felt.querySelector(".trick-caption[data-winner]") && motion()) {
          tapped = (await pause(Math.max(ms - GATHER_MS, 0))) || tapped;
          if (!table.isConnected) return;
          await gather(felt);
          before = [];
        } else {
          tapped = (await pause(ms)) || tapped;
        }
      }
      if (!table.isConnected) return;
      if (tapped) arm(table);  // the person is tapping: the next tap is not for what appears now
      playback.remove();
      stage.hidden = false;
      table.classList.remove("is-playing");
      table.removeAttribute("aria-busy");
    } else if (stage && stage.hidden) {
      stage.hidden = false;
      table.classList.remove("is-playing");
    }
    frames.forEach((f) => f.remove());
    applyDeferred(table);
    if (!frames.length && table.dataset.initial !== "1") arm(table);  // the answer came straight in
    setupHand(table);
    delete document.body.dataset.playing;
    announce(table.dataset.say);
    focusHand(table);
  }

  // A control that has just appeared where another was (the moon's choice, then "Next hand";
  // the cards chosen to pass, then the hand) ignores the pointer for a moment: no one aims a
  // click at a button within a reaction time of seeing it, so such a click was meant for the
  // old one.  After a playback that ran its course nobody was clicking, so there is no need.
  const ARM_MS = 300;
  function arm(table) {
    table.classList.add("arming");
    setTimeout(() => table.classList.remove("arming"), ARM_MS);
  }

  // after a deal the table is what matters: scroll it up if it (or the hand) is out of view
  function bringIntoView(table) {
    const top = table.getBoundingClientRect().top;
    const hand = table.querySelector(":scope > .playback .hand-form, :scope > .stage:not([hidden]) .hand-form");
    const bottom = hand ? hand.getBoundingClientRect().bottom : top;
    if (top < 0 || bottom > window.innerHeight) table.scrollIntoView({ block: "start", behavior: motion() ? "smooth" : "auto" });
  }

  // ---- the hand: one tab stop (roving tabindex) ----
  let lastCard = null;  // the card that had focus, so a new table keeps the place in the hand
  // the table's hand, and each lesson's on the Learn page (static/learn.js)
  const HAND_CARD = "#table > .stage .in-hand, .lesson .hand .in-hand";

  // the cards of ``root`` when it is a hand, else of the table's hand inside it
  function handCards(root) {
    const hand = root && root.matches(".hand") ? root : (root || document).querySelector("#table > .stage .hand");
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
    const card = event.target.closest && event.target.closest(HAND_CARD);
    if (!card) return;
    lastCard = card.dataset.card;
    setCurrent(handCards(card.closest(".hand")), card);
  });

  // ---- passing: choose exactly three ----
  let refusalTimer = 0;

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
    if (count) {
      count.classList.remove("refused");
      count.textContent = left === 0 ? t("ready") : left === 1 ? t("choose_1") : t("choose_n", { n: left });
    }
    return chosen.length;
  }

  // a fourth card is not taken, and the reason is shown beside the pass button as well as said
  function refuseFourth(form) {
    announce(t("pass_full"));
    const count = form.querySelector("[data-pass-count]");
    if (!count) return;
    count.textContent = t("pass_full");
    count.classList.add("refused");
    clearTimeout(refusalTimer);
    refusalTimer = setTimeout(() => { if (count.isConnected) updatePass(form); }, 3500);
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
        refuseFourth(form);
      }
      return;
    }
    const opener = event.target.closest("[data-open]");
    if (opener) { openDialog(opener.dataset.open); return; }
    const closer = event.target.closest("[data-close], [data-keep]");
    if (closer) { closeDialog(closer.closest("dialog")); return; }
    if (event.target.matches("dialog")) { closeDialog(event.target); return; }  // a click on the backdrop
    const copy = event.target.closest("[data-copy]");
    if (copy) {
      const field = document.querySelector(copy.dataset.copy);
      if (field) {
        field.select();
        (navigator.clipboard ? navigator.clipboard.writeText(field.value) : Promise.reject()).then(
          () => { copy.textContent = t("copied"); announce(copy.dataset.copySay || t("copied_say")); },
          () => { document.execCommand && document.execCommand("copy"); });
      }
    }
  });

  // the card the person plays, noted before htmx sends it, so it can slide from there
  document.addEventListener("click", (event) => {
    const card = event.target.closest && event.target.closest("#table > .stage .hand-form[data-mode=play] .in-hand");
    if (card && !card.disabled) lastPlayed = { card: card.dataset.card, point: middle(card) };
  }, true);

  // ---- dialogs: a new game with its options, and the keys ----
  function openDialog(id) {
    const dialog = document.getElementById(id);
    if (!dialog || dialog.open) return;
    const replaces = dialog.querySelector("[data-replaces]");
    const table = document.getElementById("table");
    if (replaces && table) replaces.value = table.dataset.game || "none";  // the table it will replace
    showConfirm(dialog, false);
    dialog.showModal();
  }

  function closeDialog(dialog) {
    if (dialog && dialog.open) dialog.close();
  }

  function showConfirm(dialog, on) {
    const question = dialog.querySelector("[data-confirm]");
    const actions = dialog.querySelector("[data-actions]");
    if (!question || !actions) return;
    question.hidden = !on;
    actions.hidden = on;
  }

  // Starting a game over one in progress asks first, inside the dialog; the answer decides
  // whether the request htmx is holding goes out.
  let pendingDeal = null;
  document.addEventListener("htmx:confirm", (event) => {
    const dialog = event.detail.elt.closest && event.detail.elt.closest("dialog");
    if (!dialog) return;
    if (event.detail.elt.hasAttribute("data-no-confirm")) return;  // opening a table abandons nothing
    const table = document.getElementById("table");
    if (table && table.dataset.inProgress === "1") {
      event.preventDefault();
      pendingDeal = event.detail.issueRequest;
      showConfirm(dialog, true);
      const keep = dialog.querySelector("[data-keep]");
      if (keep) keep.focus();
      alertNow(dialog.querySelector("[data-confirm] p").textContent.trim());
      return;
    }
    closeDialog(dialog);
  });

  document.addEventListener("click", (event) => {
    const abandon = event.target.closest && event.target.closest("[data-abandon]");
    if (!abandon || !pendingDeal) return;
    const deal = pendingDeal;
    pendingDeal = null;
    closeDialog(abandon.closest("dialog"));
    deal(true);
  });

  document.addEventListener("close", (event) => {
    if (event.target.matches && event.target.matches("#dialog-new-game")) pendingDeal = null;
  }, true);

  // ---- requests: every control that could start another one is locked meanwhile ----
  const isNewGame = (detail) => /\/game\/new$/.test((detail.requestConfig && detail.requestConfig.path) || "");

  document.addEventListener("htmx:beforeSend", (event) => {
    // htmx has just disabled them (hx-disabled-elt); assistive technologies hear it too
    document.querySelectorAll("[data-disabled-by-htmx]").forEach((el) => el.setAttribute("aria-disabled", "true"));
    const table = document.getElementById("table");
    if (!table || event.detail.target !== table) return;
    table.setAttribute("aria-busy", "true");
    if (isNewGame(event.detail)) showDealing(table);
  });

  document.addEventListener("htmx:afterRequest", (event) => {
    document.querySelectorAll("[aria-disabled=true]:not([disabled])").forEach((el) => el.removeAttribute("aria-disabled"));
    const table = document.getElementById("table");
    if (event.detail.successful) {
      connectionBack();
    } else if (table && event.detail.target === table) {
      table.querySelector(".veil")?.remove();
    }
  });

  document.addEventListener("htmx:beforeSwap", (event) => {
    if (!event.detail.target || event.detail.target.id !== "table" || !event.detail.shouldSwap) return;
    const answer = typeof event.detail.serverResponse === "string" ? patchOf(event.detail.serverResponse) : null;
    if (answer) {
      // a move at a table for friends, answered as what it changes on the table it was made on
      const table = event.detail.target;
      if (answer.dataset.game === table.dataset.game && answer.dataset.patch === table.dataset.version) {
        event.detail.serverResponse = patched(table, answer).outerHTML;
      } else {
        event.detail.shouldSwap = false;
        // (the table's events have shown it already, or the table changed meanwhile: then whole)
        if (answer.dataset.game !== table.dataset.game || Number(answer.dataset.version) > Number(table.dataset.version)) {
          tableWhole();
        }
        return;
      }
    }
    carried = { trick: trickKeys(shownFelt()), played: lastPlayed, dealt: isNewGame(event.detail),
                stage: event.detail.target.querySelector(":scope > .stage") };
    lastPlayed = null;
  });

  // Dealing against Hard takes a moment: the old table is veiled with a shuffling deck.
  function showDealing(table) {
    const board = table.querySelector(":scope > .stage .board");
    if (!board || board.querySelector(".veil")) return;
    const veil = document.createElement("div");
    veil.className = "veil";
    const deck = document.createElement("div");
    deck.className = "deck";
    deck.setAttribute("aria-hidden", "true");
    for (let i = 0; i < 5; i++) deck.appendChild(Object.assign(document.createElement("span"), { className: "back" }));
    const text = document.createElement("p");
    text.textContent = t("dealing");
    veil.append(deck, text);
    board.appendChild(veil);
  }

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

  // ``scope``: another table to read (a lesson's {felt, form, status}); else the game's table
  function readAloud(key, scope) {
    if (!scope && !document.getElementById("table")) return false;
    const felt = scope ? scope.felt : shownFelt();
    const cards = scope ? Array.from(felt.querySelectorAll(".center .on-table")) : tableCards();
    let text;
    if (key === "c") {
      text = cards.length ? cards.map(cardSay).join(", ") + "." : t("no_cards");
    } else if (/^[1-6]$/.test(key)) {
      const card = cards[Number(key) - 1];
      text = card ? cardSay(card) : t("no_card_n", { n: key });
    } else if (key === "f") {
      text = cards.length ? t("suit_led", { suit: t("suit_" + suitOf(cards[0])) }) : t("no_suit_led");
    } else if (key === "s") {
      text = felt && felt.dataset.sayScores ? felt.dataset.sayScores : t("wait");
    } else if (key === "l") {
      text = felt && felt.dataset.sayLast ? felt.dataset.sayLast : t("wait");
    } else if (key === "r") {
      const form = scope ? scope.form : document.querySelector("#table > .stage .hand-form");
      text = form && form.dataset.sayHand && document.body.dataset.playing !== "1" ? form.dataset.sayHand : t("wait");
    } else if (key === "t") {
      const status = scope ? scope.status : document.body.dataset.playing === "1" ? null : document.getElementById("status");
      text = status && status.textContent.trim() ? status.textContent.trim() : t("wait");
    } else if (key === "h") {
      openDialog("dialog-keys");
      announce(t("help"));
      return true;
    } else {
      return false;
    }
    announce(text);
    showBriefly(text);
    return true;
  }

  function moveInHand(card, key) {
    const cards = handCards(card.closest(".hand"));
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

  // ---- the review of a hand: a dialog whose body the server sends, stepped with ←/→ ----
  function reviewSteps() {
    const body = document.getElementById("review-body");
    return body ? Array.from(body.querySelectorAll(".review-step")) : [];
  }

  function stepReview(delta) {
    const steps = reviewSteps();
    if (!steps.length) return;
    const here = Math.max(0, steps.findIndex((s) => !s.hidden));
    const next = Math.min(steps.length - 1, Math.max(0, here + delta));
    steps.forEach((s, i) => { s.hidden = i !== next; });
    announce(steps[next].dataset.say);
  }

  function openReview(button) {
    const body = document.getElementById("review-body");
    if (body) {
      body.textContent = "";
      const p = document.createElement("p");
      p.className = "review-loading";
      p.textContent = body.dataset.loading || "";
      body.appendChild(p);
      announce(p.textContent);
    }
    openDialog("dialog-review");
    // asked here rather than with hx-get: the score sheet's buttons arrive in panels swapped
    // in after a playback, and one request per click whatever htmx has processed
    if (button && window.htmx) window.htmx.ajax("GET", button.dataset.review, { target: "#review-body" });
  }

  document.addEventListener("click", (event) => {
    const opener = event.target.closest && event.target.closest("[data-review]");
    if (opener) { openReview(opener); return; }
    const step = event.target.closest && event.target.closest("#review-body [data-step]");
    if (step) stepReview(Number(step.dataset.step));
  }, true);

  document.addEventListener("htmx:afterSwap", (event) => {
    if (event.target && event.target.id === "review-body") {
      const steps = reviewSteps();
      const total = event.target.querySelector(".review-total");
      announce((total ? total.textContent.trim() + " " : "") + (steps[0] ? steps[0].dataset.say : ""));
      const next = event.target.querySelector("[data-step='1']");
      if (next) next.focus();
    }
  });

  const COACH_KEYS = { i: "[data-hint]", u: "[data-undo]" };

  document.addEventListener("keydown", (event) => {
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    const review = document.getElementById("dialog-review");
    if (review && review.open && (event.key === "ArrowLeft" || event.key === "ArrowRight")) {
      // in a right-to-left page the arrows still mean earlier and later in the hand
      stepReview(event.key === "ArrowRight" ? 1 : -1);
      event.preventDefault();
      return;
    }
    if (document.querySelector("dialog[open]")) return;  // a dialog has the keys to itself
    const target = event.target;
    if (target.closest && target.closest("input, select, textarea, [contenteditable]:not([contenteditable=false])")) return;
    const card = target.closest && target.closest(HAND_CARD);
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
    const letter = event.key.length === 1 ? event.key.toLowerCase() : "";
    if (letter in COACH_KEYS || letter === "v") {
      if (target.closest && target.closest("input, select, textarea")) return;
      const selector = letter === "v" ? "#table > .stage [data-review-last], #sheet [data-review]" : COACH_KEYS[letter];
      const found = Array.from(document.querySelectorAll(selector));
      const button = letter === "v" ? found[0] && (found.find((b) => b.matches("[data-review-last]")) || found[found.length - 1]) : found[0];
      if (button && !button.disabled && document.body.dataset.playing !== "1") button.click();
      else announce(t("wait"));
      event.preventDefault();
      return;
    }
    if (letter && readAloud(letter)) event.preventDefault();
  });

  document.addEventListener("change", (event) => {
    if (event.target.matches("[data-fast-toggle]")) {
      document.body.dataset.fast = event.target.checked ? "1" : "0";
      document.querySelectorAll("[data-fast-toggle]").forEach((box) => { box.checked = event.target.checked; });
    }
  });

  // ---- a lost connection, or a server in trouble: back off, then show the table as saved ----
  // One request at a time, at growing intervals with jitter (so many pages do not retry in
  // step), never sooner than the server's Retry-After; the table is locked meanwhile.
  const RETRY_BASE_MS = 500;
  const RETRY_CAP_MS = 15000;
  const net = { down: false, attempt: 0, timer: 0 };

  function retryAfterMs(xhr) {
    const value = xhr && xhr.getResponseHeader("Retry-After");
    if (!value) return 0;
    const seconds = Number(value);
    if (!Number.isNaN(seconds)) return Math.max(0, seconds * 1000);
    const date = Date.parse(value);
    return Number.isNaN(date) ? 0 : Math.max(0, date - Date.now());
  }

  function nextDelay(minimum) {
    const ceiling = Math.min(RETRY_CAP_MS, RETRY_BASE_MS * 2 ** net.attempt);
    net.attempt += 1;
    return Math.max(minimum, ceiling / 2 + Math.random() * ceiling / 2);
  }

  function tableUrl(table) {
    return (document.body.dataset.tableUrl || "/table") + (table.dataset.embed === "1" ? "?embed=true" : "");
  }

  function connectionTrouble(minimum) {
    const table = document.getElementById("table");
    if (!net.down) {
      net.down = true;
      net.attempt = 0;
      const banner = document.getElementById("connection");
      if (banner) banner.hidden = false;
      alertNow(t("reconnecting"));
    }
    if (table) {
      table.inert = true;
      table.setAttribute("aria-busy", "true");
      table.querySelector(".veil")?.remove();
    }
    clearTimeout(net.timer);
    net.timer = setTimeout(() => {
      const now = document.getElementById("table");
      if (!now || !window.htmx) return;
      // a failure comes back as an htmx event and schedules the next try
      window.htmx.ajax("GET", tableUrl(now), { target: "#table", swap: "outerHTML" }).catch(() => {});
    }, nextDelay(minimum));
  }

  function connectionBack() {
    if (!net.down) return;
    net.down = false;
    clearTimeout(net.timer);
    const banner = document.getElementById("connection");
    if (banner) banner.hidden = true;
    announce(t("reconnected"));
  }

  document.addEventListener("htmx:sendError", () => connectionTrouble(0));
  document.addEventListener("htmx:timeout", () => connectionTrouble(0));
  document.addEventListener("htmx:responseError", (event) => connectionTrouble(retryAfterMs(event.detail.xhr)));

  // the same for a table asked for again (after a busy or failed answer, or a move drawn on
  // another table than the one shown)
  document.addEventListener("htmx:beforeSwap", (event) => {
    const target = event.detail.target;
    if (target && target.id === "table" && event.detail.shouldSwap) applyDeferred(target);
  });

  document.addEventListener("htmx:afterSwap", () => {
    const table = document.getElementById("table");
    if (table) play(table);
  });

  document.addEventListener("DOMContentLoaded", () => {
    const table = document.getElementById("table");
    if (table) { table.dataset.initial = "1"; play(table); delete table.dataset.initial; }
  });

  // ---- a table for friends: every move arrives as a server-sent event (htmx's SSE extension) ----
  // An event's id is "game.version.revision"; the table an action's own answer already shows
  // is not drawn again when its event comes.
  function keyOf(id) {
    const parts = (id || "").split(".");
    return parts.length === 3 ? { game: parts[0], version: Number(parts[1]) } : null;
  }
  document.addEventListener("htmx:sseBeforeMessage", (event) => {
    if (event.detail.type !== "table") return;
    const table = document.getElementById("table");
    const key = keyOf(event.detail.lastEventId);
    if (table && key && key.game === table.dataset.game && key.version <= Number(table.dataset.version)) {
      event.preventDefault();
      return;
    }
    const patch = patchOf(event.detail.data);
    if (patch && !(table && patch.dataset.game === table.dataset.game && patch.dataset.patch === table.dataset.version)) {
      // a move drawn on another table than the one shown (this page's own answer came in
      // between): the table as it is now, whole
      event.preventDefault();
      if (table) tableWhole();
      return;
    }
    // a table drawn whole takes the place of one whose playback may not have finished: the
    // side panels that one still held back (a trick line, the records after a moon) go first
    if (!patch && table) applyDeferred(table);
    carried = { trick: trickKeys(shownFelt()), played: null, dealt: false,
                stage: table ? table.querySelector(":scope > .stage") : null };
    // the cards this person has chosen to pass stay chosen while the others' passes arrive
    chosenBefore = Array.from(document.querySelectorAll("#table > .stage .hand-form[data-mode=pass] .in-hand[aria-pressed=true]"),
                              (card) => card.dataset.card);
    if (patch && window.htmx) {
      event.preventDefault();
      window.htmx.swap(table, patched(table, patch).outerHTML, { swapStyle: "outerHTML", ignoreTitle: true });
      tableShown();
      startCountdown();
    }
  });

  // A move within a hand comes as what it changes on the table the page shows (the event's
  // section names that table's version in data-patch): the page's table is copied, the
  // final table's parts put in it in place of its own, and it is swapped in as a whole
  // table would be, with the playback and the side panels the event carries.
  function tableWhole() {
    const table = document.getElementById("table");
    if (!table || !window.htmx) return;
    window.htmx.ajax("GET", tableUrl(table), { target: "#table", swap: "outerHTML" }).catch(() => {});
  }

  function patchOf(data) {
    if (!data || data.indexOf("data-patch=") < 0) return null;
    const holder = document.createElement("template");
    holder.innerHTML = data;
    const section = holder.content.firstElementChild;
    return section && section.id === "table" && section.hasAttribute("data-patch") ? section : null;
  }

  function patched(table, patch) {
    const next = table.cloneNode(true);
    // (what the playback under way showed is left behind; side panels not yet swapped stay)
    next.querySelectorAll(":scope > .playback, :scope > template.frame, :scope > [data-alert]").forEach((el) => el.remove());
    // (controls locked by a request on its way are the table's own again, as in a table drawn whole)
    next.querySelectorAll("[data-disabled-by-htmx]").forEach((el) => {
      ["disabled", "data-disabled-by-htmx", "aria-disabled"].forEach((name) => el.removeAttribute(name));
    });
    next.querySelectorAll(".htmx-request").forEach((el) => el.classList.remove("htmx-request"));
    Array.from(next.attributes).forEach((a) => next.removeAttribute(a.name));
    Array.from(patch.attributes).forEach((a) => { if (a.name !== "data-patch") next.setAttribute(a.name, a.value); });
    const countdown = next.querySelector(":scope > .table-bar .countdown");
    const fresh = patch.querySelector(":scope > .countdown");
    if (countdown && fresh) countdown.replaceWith(fresh);
    else if (countdown) countdown.remove();
    else if (fresh) next.querySelector(":scope > .table-bar .level")?.after(fresh);
    const stage = next.querySelector(":scope > .stage");
    const final = patch.querySelector(":scope > template.final");
    if (stage && final) {
      Array.from(final.content.children).forEach((part) => {
        if (part.matches(".hand-form")) {
          stage.querySelector(".hand-form")?.replaceWith(part);
          return;
        }
        const key = part.dataset.part;
        if (key === "felt") {
          const felt = stage.querySelector(".felt");
          if (felt) ["phase", "sayLast", "sayScores"].forEach((name) => { felt.dataset[name] = part.dataset[name]; });
          return;
        }
        stage.querySelector(`[data-part="${key}"]`)?.replaceWith(part);
      });
      stage.querySelectorAll("input[name=version]").forEach((input) => { input.value = next.dataset.version; });
    }
    const frames = Array.from(patch.querySelectorAll(":scope > template:not(.final)"));
    if (stage) stage.hidden = frames.some((tpl) => tpl.matches(".frame"));
    frames.forEach((tpl) => next.appendChild(tpl));
    return next;
  }

  let chosenBefore = [];
  document.addEventListener("htmx:sseMessage", (event) => {
    if (event.detail.type === "table") tableShown();
  });

  // The people's panel is drawn again whenever somebody comes or goes: a friend choosing a
  // seat keeps the one chosen while it is still free (the name typed is kept by hx-preserve)
  let seatBefore = null;
  document.addEventListener("htmx:sseBeforeMessage", (event) => {
    if (event.detail.type !== "people") return;
    const select = document.querySelector("#people form.join select[name=seat]");
    seatBefore = select ? select.value : null;
  });
  document.addEventListener("htmx:sseMessage", (event) => {
    if (event.detail.type !== "people" || seatBefore === null) return;
    const select = document.querySelector("#people form.join select[name=seat]");
    if (select && Array.from(select.options).some((option) => option.value === seatBefore)) select.value = seatBefore;
    seatBefore = null;
  });
  function tableShown() {
    const table = document.getElementById("table");
    if (!table) return;
    const form = table.querySelector(":scope > .stage .hand-form[data-mode=pass]");
    if (form && chosenBefore.length) {
      chosenBefore.forEach((code) => {
        const card = form.querySelector(`.in-hand[data-card="${code}"]:not([aria-pressed=true])`);
        if (card) card.setAttribute("aria-pressed", "true");
      });
      updatePass(form);
    }
    chosenBefore = [];
    play(table);
  }
  document.addEventListener("htmx:sseClose", (event) => {
    if (event.detail.type !== "message") return;
    const note = document.getElementById("closed-note");
    if (note) note.hidden = false;
    const table = document.getElementById("table");
    if (table) table.inert = true;
  });
  document.addEventListener("htmx:sseError", () => {
    const banner = document.getElementById("connection");
    if (banner) banner.hidden = false;
  });
  document.addEventListener("htmx:sseOpen", () => {
    const banner = document.getElementById("connection");
    if (banner && !net.down) banner.hidden = true;
  });

  // the turn timer: counted down here from the seconds the table was sent with
  let countdown = 0;
  function tick() {
    const el = document.querySelector("#table [data-countdown]");
    if (!el) return;
    const left = Math.max(0, Number(el.dataset.countdown) - Math.floor((Date.now() - Number(el.dataset.since)) / 1000));
    el.textContent = (el.dataset.text || "%(seconds)s").replace("%(seconds)s", String(left));
    el.classList.toggle("is-short", left <= 5);
  }
  function startCountdown() {
    const el = document.querySelector("#table [data-countdown]");
    clearInterval(countdown);
    if (!el) return;
    el.dataset.since = String(Date.now());
    tick();
    countdown = setInterval(tick, 1000);
  }
  document.addEventListener("htmx:afterSettle", startCountdown);
  document.addEventListener("htmx:sseMessage", startCountdown);
  document.addEventListener("DOMContentLoaded", startCountdown);

  // what static/learn.js uses, so the lessons speak, choose and read as the table does
  window.Hearts = { announce, alertNow, showBriefly, t, readAloud, setCurrent, handCards };
})();
