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
  // A confirmation for forms that destroy something; the server still
  // requires what the form asks (a typed name), so this only saves a trip.
  document.querySelectorAll("form[data-confirm]").forEach(function (f) {
    f.addEventListener("submit", function (e) {
      if (!window.confirm(f.getAttribute("data-confirm"))) { e.preventDefault(); }
    });
  });
});
