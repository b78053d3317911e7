// The Learn page: each lesson's hand is one tab stop moved with the table's keys (app.js),
// the reading keys read the lesson in view, and what a lesson says after the learner's move
// is said in the page's live region and, for a refused or poor move, shown for a moment.
// The server judges every move (app/lessons.py); this file only decides where focus goes.
(function () {
  "use strict";

  const page = () => window.Hearts;  // app.js, loaded first

  function lessonOf(el) {
    return el && el.closest ? el.closest(".lesson") : null;
  }

  // the lesson the reading keys read: the one holding the focus, else the one nearest the
  // middle of the screen (a phone user who scrolled to it)
  function currentLesson() {
    const focused = lessonOf(document.activeElement);
    if (focused) return focused;
    const middle = window.innerHeight / 2;
    let best = null;
    let distance = Infinity;
    document.querySelectorAll(".lesson").forEach((lesson) => {
      const r = lesson.getBoundingClientRect();
      const d = r.top > middle ? r.top - middle : r.bottom < middle ? middle - r.bottom : 0;
      if (d < distance) { best = lesson; distance = d; }
    });
    return best;
  }

  function scopeOf(lesson) {
    return { felt: lesson.querySelector(".felt"), form: lesson.querySelector(".hand-form"),
             status: lesson.querySelector(".status") || lesson.querySelector(".caption") };
  }

  // one tab stop per hand: the card the learner was on, else the first
  function rove(lesson, keep) {
    const hand = lesson.querySelector(".hand");
    const cards = hand ? page().handCards(hand) : [];
    if (!cards.length) return null;
    const card = cards.find((c) => c.dataset.card === keep) || cards[0];
    page().setCurrent(cards, card);
    return card;
  }

  document.addEventListener("keydown", (event) => {
    if (event.ctrlKey || event.metaKey || event.altKey || event.key.length !== 1) return;
    if (document.querySelector("dialog[open]")) return;
    const target = event.target;
    if (target.closest && target.closest("input, select, textarea, [contenteditable]:not([contenteditable=false])")) return;
    const lesson = currentLesson();
    if (lesson && page().readAloud(event.key.toLowerCase(), scopeOf(lesson))) event.preventDefault();
  });

  // ---- after a move: say what the lesson says, and put the focus where the learner goes on ----
  let asked = null;  // the lesson asked about, and the card that had the focus then

  document.addEventListener("htmx:beforeRequest", (event) => {
    const lesson = lessonOf(event.detail.elt);
    if (!lesson) return;
    const active = document.activeElement;
    asked = { id: lesson.id, card: active && active.dataset ? active.dataset.card : null };
  });

  document.addEventListener("htmx:afterSwap", () => {
    if (!asked) return;
    const lesson = document.getElementById(asked.id);
    const keep = asked.card;
    asked = null;
    if (!lesson) return;
    const say = lesson.dataset.say;
    const kind = lesson.dataset.verdict;
    if (say) page().announce(say);
    const verdict = lesson.querySelector(".verdict");
    const toast = document.getElementById("toast");
    if (toast) toast.hidden = true;  // what the last try said is no longer the news
    if (verdict && kind !== "right") page().showBriefly(verdict.textContent.trim(), kind !== "poor");
    const card = rove(lesson, keep);
    const next = lesson.querySelector(".lesson-foot .next");
    const focus = kind === "right" ? next : card;
    if (focus) focus.focus({ preventScroll: true });
    if (verdict) verdict.scrollIntoView({ block: "nearest" });
  });

  document.addEventListener("DOMContentLoaded", () => {
    document.querySelectorAll(".lesson").forEach((lesson) => rove(lesson, null));
  });
})();
