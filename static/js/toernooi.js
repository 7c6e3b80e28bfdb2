/* The toernooi's pages: the little JavaScript they have.
   1. A poll marked data-poll-visible asks nothing while the page is hidden (a tablet in a
      pocket, a background tab). htmx's trigger filter [document.visibilityState === 'visible']
      would say the same, but htmx evaluates filters as code, which the CSP (no eval) forbids.
   2. A button with data-print prints the page (the table cards, the prize list). */
(function () {
  "use strict";

  document.addEventListener("htmx:beforeRequest", function (evt) {
    var elt = evt.detail && evt.detail.elt;
    if (elt && elt.hasAttribute && elt.hasAttribute("data-poll-visible") &&
        document.visibilityState !== "visible") {
      evt.preventDefault();
    }
  });

  document.addEventListener("click", function (evt) {
    var button = evt.target.closest && evt.target.closest("[data-print]");
    if (button) {
      evt.preventDefault();
      window.print();
    }
  });
})();
