/* The toernooi's pages: the little JavaScript they have besides static/js/poll.js (which
   pauses the polls of a hidden page and polls at once when it is shown again).
   1. A button with data-print prints the page (the table cards, the prize list).
   2. A poll that fails (pub wifi) shows the page's [data-stale] notice until one gets through
      again: what the page shows may be behind, and the organiser should know.
   3. Tap-tap swap on a drawn series: tap a name, then another, and the swap form (two
      selects, which work without this) is sent with those two. */
(function () {
  "use strict";

  function stale(on) {
    document.querySelectorAll("[data-stale]").forEach(function (notice) { notice.hidden = !on; });
  }
  ["htmx:sendError", "htmx:timeout", "htmx:responseError"].forEach(function (name) {
    document.addEventListener(name, function (evt) {
      var elt = evt.detail && evt.detail.elt;
      if (elt && elt.hasAttribute && elt.hasAttribute("data-poll-visible")) { stale(true); }
    });
  });
  // Before the swap: the polled element is replaced (outerHTML), and an event on the old one
  // after that no longer reaches the document.
  document.addEventListener("htmx:beforeSwap", function (evt) {
    var elt = evt.detail && evt.detail.elt;
    var xhr = evt.detail && evt.detail.xhr;
    if (xhr && xhr.status < 400 && elt && elt.hasAttribute && elt.hasAttribute("data-poll-visible")) {
      stale(false);
    }
  });

  document.addEventListener("click", function (evt) {
    var button = evt.target.closest && evt.target.closest("[data-print]");
    if (button) {
      evt.preventDefault();
      window.print();
      return;
    }
    var pick = evt.target.closest && evt.target.closest("[data-swap-id]");
    var form = document.getElementById("swap-form");
    if (!pick || !form) { return; }
    var picked = document.querySelector('[data-swap-id][aria-pressed="true"]');
    if (picked === pick) {
      pick.setAttribute("aria-pressed", "false");
    } else if (!picked) {
      pick.setAttribute("aria-pressed", "true");
    } else {
      form.elements.a.value = picked.dataset.swapId;
      form.elements.b.value = pick.dataset.swapId;
      pick.setAttribute("aria-pressed", "true");
      form.requestSubmit ? form.requestSubmit() : form.submit();
    }
  });
})();
