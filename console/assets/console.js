// Copy buttons: every page works without this script; with it, a value
// shown once (a key, a signing secret) gets a button that copies it.
document.addEventListener("DOMContentLoaded", function () {
  document.querySelectorAll("button.copy[data-copy]").forEach(function (b) {
    var field = document.getElementById(b.getAttribute("data-copy"));
    if (!field || !navigator.clipboard) { return; }
    b.hidden = false;
    b.addEventListener("click", function () {
      var text = "value" in field ? field.value : field.textContent;
      navigator.clipboard.writeText(text).then(function () {
        b.textContent = "Copied";
        setTimeout(function () { b.textContent = "Copy"; }, 2000);
      });
    });
  });
  // A table wider than its box scrolls inside it; a box with no link or
  // control to move the focus into it becomes a stop of its own, so the
  // keyboard scrolls it too.
  function scrollable() {
    // A box the page made a stop of its own (data-stop) keeps it.
    document.querySelectorAll(".tablebox:not([data-stop])").forEach(function (box) {
      var wide = box.scrollWidth > box.clientWidth;
      var inner = box.querySelector("a[href], button, input, select, textarea, summary");
      if (wide && !inner) {
        var t = box.querySelector("table");
        var c = t && t.querySelector("caption");
        box.setAttribute("tabindex", "0");
        box.setAttribute("role", "region");
        box.setAttribute("aria-label", (t && t.getAttribute("aria-label")) || (c && c.textContent.trim()) || "Table");
      } else if (box.getAttribute("role") === "region") {
        box.removeAttribute("tabindex");
        box.removeAttribute("role");
        box.removeAttribute("aria-label");
      }
    });
  }
  scrollable();
  window.addEventListener("resize", scrollable);
});
