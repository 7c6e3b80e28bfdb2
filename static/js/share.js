/* "Delen" (the tablet's end screen, the evening page): an <a data-share download> to the game's
   picture (scoring/picture.py). A phone that can share files (the Web Share API:
   navigator.canShare({files})) offers the picture to its apps, the group chat among them;
   anywhere else the link does what it says without this script: it downloads the picture.
   One listener on the document, so that a button drawn later by htmx works too. */
(function () {
  "use strict";

  function shareable() {
    return typeof navigator.canShare === "function" && typeof navigator.share === "function";
  }

  document.addEventListener("click", function (event) {
    var link = event.target.closest && event.target.closest("a[data-share]");
    if (!link || !shareable()) return;
    event.preventDefault();
    fetch(link.href, { credentials: "same-origin" })
      .then(function (response) {
        if (!response.ok) throw new Error(response.status);
        return response.blob();
      })
      .then(function (blob) {
        var file = new File([blob], link.getAttribute("download") || "lei.png", { type: "image/png" });
        if (navigator.canShare({ files: [file] })) {
          return navigator.share({ files: [file], title: document.title });
        }
        var a = document.createElement("a");  // no files to share here: download it after all
        a.href = URL.createObjectURL(blob);
        a.download = file.name;
        document.body.appendChild(a);
        a.click();
        a.remove();
      })
      .catch(function (error) {
        // The person closed the share sheet: nothing to do. Anything else: the plain download.
        if (error && error.name === "AbortError") return;
        window.location.href = link.href;
      });
  });
})();
