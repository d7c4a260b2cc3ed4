/**
 * The page's only script, inlined (no network): hover details and the step slider of every
 * space-time diagram on the page. The SVG is drawn by the server; this script only toggles classes,
 * so stepping through thousands of events stays fast: each step touches only the elements whose
 * state changes between the old and the new position.
 */
export const CLIENT_SCRIPT = String.raw`
(function () {
  "use strict";
  function setup(root) {
    var svg = root.querySelector("svg.spacetime");
    if (!svg) return;
    var slider = root.querySelector("input.step");
    var readout = root.querySelector(".step-readout");
    var details = root.querySelector(".details");
    var cursor = svg.querySelector("line.cursor");
    var appear = new Map();
    var arrive = new Map();
    var dots = new Map();
    var steps = [];
    svg.querySelectorAll("[data-i]").forEach(function (el) {
      var i = Number(el.getAttribute("data-i"));
      if (!appear.has(i)) appear.set(i, []);
      appear.get(i).push(el);
      if (el.hasAttribute("data-j")) {
        var j = Number(el.getAttribute("data-j"));
        if (!arrive.has(j)) arrive.set(j, []);
        arrive.get(j).push(el);
      }
      if (el.classList.contains("ev")) { dots.set(i, el); steps.push(i); }
    });
    steps.sort(function (a, b) { return a - b; });
    slider.max = String(Math.max(0, steps.length - 1));
    var current = steps.length - 1;
    var shownUpTo = steps.length ? steps[steps.length - 1] : -1;
    var all = Array.from(new Set(Array.from(appear.keys()).concat(Array.from(arrive.keys())))).sort(function (a, b) { return a - b; });

    function titleOf(el) { var t = el && el.querySelector("title"); return t ? t.textContent : ""; }
    function stateAt(el, upTo) {
      var i = Number(el.getAttribute("data-i"));
      el.classList.toggle("future", i > upTo);
      if (el.hasAttribute("data-j")) {
        var j = Number(el.getAttribute("data-j"));
        el.classList.toggle("flying", i <= upTo && j > upTo);
      }
    }
    // Update only the elements that appear or arrive between the old and the new trace position.
    function moveTo(upTo) {
      var lo = Math.min(upTo, shownUpTo), hi = Math.max(upTo, shownUpTo);
      for (var k = 0; k < all.length; k++) {
        var idx = all[k];
        if (idx <= lo || idx > hi) continue;
        (appear.get(idx) || []).forEach(function (el) { stateAt(el, upTo); });
        (arrive.get(idx) || []).forEach(function (el) { stateAt(el, upTo); });
      }
      shownUpTo = upTo;
    }
    var scroller = root.querySelector(".scroll");
    var head = root.querySelector("svg.lanes-head");
    // Scroll the diagram (not the page) so that the point is in view, with the lane header above it.
    function reveal(x, y) {
      var top = y + (head ? head.getBoundingClientRect().height : 0);
      if (top < scroller.scrollTop + 80 || top > scroller.scrollTop + scroller.clientHeight - 40) scroller.scrollTop = top - scroller.clientHeight / 2;
      if (x < scroller.scrollLeft + 60 || x > scroller.scrollLeft + scroller.clientWidth - 60) scroller.scrollLeft = x - scroller.clientWidth / 2;
    }
    function show(stepNo, scroll) {
      current = Math.max(0, Math.min(steps.length - 1, stepNo));
      var index = steps[current];
      moveTo(index);
      slider.value = String(current);
      var prev = svg.querySelector(".ev.current");
      if (prev) prev.classList.remove("current");
      var dot = dots.get(index);
      if (dot) {
        dot.classList.add("current");
        var cy = dot.querySelector("circle").getAttribute("cy");
        cursor.setAttribute("y1", cy); cursor.setAttribute("y2", cy);
        if (scroll) reveal(Number(dot.querySelector("circle").getAttribute("cx")), Number(cy));
      }
      readout.textContent = "step " + (current + 1) + " of " + steps.length + " (trace event #" + index + ")";
      details.textContent = titleOf(dot);
    }
    function stepOfIndex(index) {
      var lo = 0, hi = steps.length - 1;
      while (lo < hi) { var mid = (lo + hi + 1) >> 1; if (steps[mid] <= index) lo = mid; else hi = mid - 1; }
      return lo;
    }
    function stepOfTime(ms) {
      var best = steps.length - 1;
      for (var k = 0; k < steps.length; k++) {
        var dot = dots.get(steps[k]);
        var t = Number((titleOf(dot).match(/t=(\d+)ms/) || [])[1]);
        if (t >= ms) { best = k; break; }
      }
      return best;
    }
    var timer = null;
    function play(on) {
      if (timer) { clearInterval(timer); timer = null; }
      root.querySelector("[data-act=play]").textContent = on ? "pause" : "play";
      if (!on) return;
      timer = setInterval(function () {
        if (current >= steps.length - 1) return play(false);
        show(current + 1, true);
      }, 60);
    }
    slider.addEventListener("input", function () { play(false); show(Number(slider.value), true); });
    root.addEventListener("click", function (ev) {
      var target = ev.target.closest("[data-act], [data-at-ms]");
      if (!target) return;
      var act = target.getAttribute("data-act");
      if (target.hasAttribute("data-at-ms") || act === "violation") {
        var box = root.getBoundingClientRect();
        if (box.top < 0 || box.top > window.innerHeight / 2) root.scrollIntoView({ block: "start" });
      }
      if (target.hasAttribute("data-at-ms")) { play(false); show(stepOfTime(Number(target.getAttribute("data-at-ms"))), true); return; }
      if (act === "first") show(0, true);
      else if (act === "prev") show(current - 1, true);
      else if (act === "next") show(current + 1, true);
      else if (act === "last") show(steps.length - 1, true);
      else if (act === "play") play(!timer);
      else if (act === "violation") show(stepOfIndex(Number(root.getAttribute("data-violation-index"))), true);
    });
    root.addEventListener("keydown", function (ev) {
      if (ev.key === "ArrowRight") { show(current + 1, true); ev.preventDefault(); }
      if (ev.key === "ArrowLeft") { show(current - 1, true); ev.preventDefault(); }
    });
    // Labels never cover one another nor run out of the diagram: in order of importance (the stale
    // marker, the records it closed, the violation, key messages, the rest), a label that would
    // overlap one already shown, or run past an edge, is hidden; hovering its arrow or dot still
    // shows its text. "all labels" shows every one, overlaps and all.
    function rank(t) {
      var g = t.parentNode;
      if (g.classList.contains("em-stale")) return 0;
      if (g.classList.contains("em-victim")) return 1;
      if (g.classList.contains("violation-line")) return 2;
      if (g.classList.contains("key") || g.classList.contains("labelled")) return 3;
      if (g.classList.contains("band")) return 5;
      return 4;
    }
    function declutter() {
      svg.querySelectorAll(".crowded").forEach(function (el) { el.classList.remove("crowded"); });
      if (root.classList.contains("all-labels")) return;
      var edge = svg.getBoundingClientRect();
      var labels = Array.from(svg.querySelectorAll("text.alabel, text.elabel, .violation-line text, .band text"))
        .filter(function (t) { return getComputedStyle(t).display !== "none"; });
      labels.sort(function (a, b) { return rank(a) - rank(b); });
      var placed = [];
      labels.forEach(function (t) {
        var r = t.getBoundingClientRect();
        if (r.right > edge.right - 1 && t.classList.contains("elabel")) {
          // An event's label past the right edge goes to the left of its dot.
          var dot = t.parentNode.querySelector("circle");
          t.setAttribute("x", String(Number(dot.getAttribute("cx")) - 7));
          t.setAttribute("text-anchor", "end");
          r = t.getBoundingClientRect();
        }
        var out = r.left < edge.left - 0.5 || r.right > edge.right + 0.5;
        var hit = placed.some(function (p) { return r.left < p.right && p.left < r.right && r.top < p.bottom && p.top < r.bottom; });
        if (out || hit) t.classList.add("crowded"); else placed.push(r);
      });
    }
    // A lane name longer than its lane is narrowed to fit between its neighbours.
    function fitLaneNames() {
      if (!head) return;
      ["text.lane-name", "text.lane-sub"].forEach(function (selector) {
        var texts = Array.from(head.querySelectorAll(selector));
        var xs = texts.map(function (t) { return Number(t.getAttribute("x")); });
        var width = Number(head.getAttribute("width"));
        texts.forEach(function (t, k) {
          var left = k > 0 ? (xs[k] - xs[k - 1]) / 2 : xs[k];
          var right = k < xs.length - 1 ? (xs[k + 1] - xs[k]) / 2 : width - xs[k];
          var room = 2 * Math.min(left, right) - 8;
          if (t.getComputedTextLength() > room) {
            t.setAttribute("textLength", String(room));
            t.setAttribute("lengthAdjust", "spacingAndGlyphs");
          }
        });
      });
    }
    root.querySelectorAll("input[data-toggle]").forEach(function (box) {
      box.addEventListener("change", function () {
        root.classList.toggle(box.getAttribute("data-toggle"), box.checked);
        declutter();
      });
    });
    svg.addEventListener("mouseover", function (ev) {
      var el = ev.target.closest("[data-i]");
      if (el) details.textContent = titleOf(el);
    });
    svg.addEventListener("click", function (ev) {
      var el = ev.target.closest("g.ev[data-i]");
      if (el) { play(false); show(stepOfIndex(Number(el.getAttribute("data-i"))), false); }
    });
    root.eosfuzz = { show: show, steps: steps, get current() { return current; }, declutter: declutter };
    // The diagram opens at its violation (in view), not at the end nor at t=0 of thousands of events.
    var at = root.getAttribute("data-violation-index");
    fitLaneNames();
    declutter();
    if (at) {
      show(stepOfIndex(Number(at)), false);
      // The violation near the top of the diagram's view, so that the legend above it stays in view too.
      var dotNow = dots.get(steps[current]);
      if (dotNow) {
        var c = dotNow.querySelector("circle");
        scroller.scrollTop = Number(c.getAttribute("cy")) + (head ? head.getBoundingClientRect().height : 0) - 150;
        var cx = Number(c.getAttribute("cx"));
        if (cx > scroller.clientWidth - 60) scroller.scrollLeft = cx - scroller.clientWidth / 2;
      }
    } else show(steps.length - 1, false);
    // The page's first failure (the shrunk one) is where the page opens.
    if (root.hasAttribute("data-open")) {
      root.scrollIntoView({ block: "start" });
      var seen = svg.querySelector(".ev.current circle");
      var below = seen ? seen.getBoundingClientRect().bottom - window.innerHeight + 80 : 0;
      if (below > 0) window.scrollBy(0, below);
    }
  }
  document.querySelectorAll(".diagram").forEach(setup);
})();
`;
