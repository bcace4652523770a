"use strict";
// Copy buttons: the clipboard API where the browser allows it (a page opened from disk may not),
// else the command is selected so that Ctrl+C copies it.
document.querySelectorAll("button.copy").forEach(function (button) {
  button.addEventListener("click", function () {
    var code = button.parentElement.querySelector("code");
    function select() {
      var range = document.createRange();
      range.selectNodeContents(code);
      var selection = window.getSelection();
      selection.removeAllRanges();
      selection.addRange(range);
      var copied = false;
      try { copied = document.execCommand("copy"); } catch (e) { copied = false; }
      button.textContent = copied ? "copied" : "selected: press Ctrl+C";
    }
    if (navigator.clipboard && navigator.clipboard.writeText) {
      navigator.clipboard.writeText(code.textContent).then(function () { button.textContent = "copied"; }, select);
    } else {
      select();
    }
  });
});
