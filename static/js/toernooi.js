/* The toernooi's pages: the little JavaScript they have besides static/js/poll.js (which
   pauses the polls of a hidden page, polls at once when it is shown again, and shows the
   [data-stale] notice while polls fail).
   1. A button with data-print prints the page (the table cards, the prize list).
   2. Tap-tap swap on a drawn series: tap a name, then another, and the swap form (two
      selects, which work without this) is sent with those two. */
(function () {
  "use strict";

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
