/* The digital lei: the little JavaScript it has. Everything works without it; this adds
   1. taps that survive bad pub wifi: a POST that does not arrive is marked "niet opgeslagen"
      and sent again with the same form data, so with the same idempotency key (the server
      records it once);
   2. the viewers' poll with If-None-Match, so an unchanged sheet is a 304 and is left alone;
   3. the session form: tapping a club player fills the next free seat. */
(function () {
  "use strict";

  var pending = new WeakMap(); // form -> {path, values, attempts, timer}
  var RETRY_STATUS = function (status) { return status === 0 || status === 408 || status === 429 || status >= 500; };

  function unsavedNotice(show) {
    var notice = document.getElementById("unsaved");
    if (notice) { notice.hidden = !show; }
  }

  function mark(form, on) {
    var text = (document.getElementById("unsaved") || {dataset: {}}).dataset.unsavedText || "niet opgeslagen";
    form.classList.toggle("is-unsaved", on);
    form.querySelectorAll("[data-unsaved]").forEach(function (el) { el.remove(); });
    if (on) {
      var badge = document.createElement("span");
      badge.className = "badge badge--voor-dood";
      badge.setAttribute("data-unsaved", "");
      badge.setAttribute("role", "status");
      badge.textContent = text;
      form.appendChild(badge);
    }
  }

  document.addEventListener("htmx:configRequest", function (evt) {
    var detail = evt.detail;
    var elt = detail.elt;
    if (detail.verb === "get" && elt.dataset && elt.dataset.etag) {
      detail.headers["If-None-Match"] = elt.dataset.etag;
    }
    if (detail.verb === "post" && elt.tagName === "FORM") {
      var state = pending.get(elt) || {attempts: 0};
      if (!state.values) {
        // Keep exactly what this tap sends (the submitter included): a retry repeats it.
        state.path = detail.path;
        state.values = {};
        detail.formData.forEach(function (value, name) { state.values[name] = value; });
      }
      pending.set(elt, state);
    }
  });

  document.addEventListener("htmx:beforeSwap", function (evt) {
    if (evt.detail.xhr && evt.detail.xhr.status === 304) { evt.detail.shouldSwap = false; }
  });

  function failed(evt) {
    var elt = evt.detail.elt;
    var state = elt && pending.get(elt);
    if (!state || state.timer) { return; }
    if (evt.type === "htmx:responseError" && !RETRY_STATUS(evt.detail.xhr.status)) {
      pending.delete(elt);
      return;
    }
    state.attempts += 1;
    mark(elt, true);
    unsavedNotice(true);
    var delay = Math.min(500 * Math.pow(2, state.attempts), 15000);
    state.timer = window.setTimeout(function () {
      state.timer = null;
      if (!document.body.contains(elt)) { return; }
      htmx.ajax("POST", state.path, {source: elt, values: state.values});
    }, delay);
  }
  ["htmx:sendError", "htmx:timeout", "htmx:responseError"].forEach(function (name) {
    document.addEventListener(name, failed);
  });

  document.addEventListener("htmx:afterRequest", function (evt) {
    var elt = evt.detail.elt;
    if (evt.detail.successful && elt && pending.has(elt)) {
      pending.delete(elt);
      mark(elt, false);
      unsavedNotice(false);
    }
  });

  // The session form: tap club players in seating order.
  document.addEventListener("click", function (evt) {
    var chip = evt.target.closest("[data-seat-name]");
    if (chip) {
      var seats = Array.prototype.slice.call(document.querySelectorAll("input[name^='seat_']"));
      var name = chip.getAttribute("data-seat-name");
      if (seats.some(function (s) { return s.value.trim().toLowerCase() === name.toLowerCase(); })) { return; }
      var free = seats.find(function (s) { return !s.value.trim(); });
      if (free) { free.value = name; free.dispatchEvent(new Event("input", {bubbles: true})); }
      return;
    }
    if (evt.target.closest("[data-clear-seats]")) {
      document.querySelectorAll("input[name^='seat_']").forEach(function (s) { s.value = ""; });
      document.dispatchEvent(new Event("input"));
    }
  });

  // The dealer list says who sits on each seat.
  function dealerNames() {
    var dealer = document.querySelector("select[name='dealer']");
    if (!dealer) { return; }
    Array.prototype.forEach.call(dealer.options, function (option) {
      if (!option.dataset.seat) { option.dataset.seat = option.textContent; }
      var seat = document.querySelector("input[name='seat_" + option.value + "']");
      var name = seat && seat.value.trim();
      option.textContent = name ? option.dataset.seat + " — " + name : option.dataset.seat;
    });
  }
  document.addEventListener("input", dealerNames);
  document.addEventListener("DOMContentLoaded", function () {
    dealerNames();
    var clear = document.querySelector("[data-clear-seats]");
    if (clear) { clear.hidden = false; }
  });
})();
