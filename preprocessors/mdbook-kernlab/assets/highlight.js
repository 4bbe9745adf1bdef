// Stands in for mdBook's highlight.js (47 KiB): the notebook's code blocks are highlighted at
// build time by mdbook-kernlab (`highlight-all-code = true` in book.toml), so mdBook's book.js
// finds nothing left to do in the browser. Written by `mdbook-kernlab theme --replace-highlight-js`.
window.hljs = {
  configure: function () {},
  highlightBlock: function () {},
  highlightElement: function () {},
};
