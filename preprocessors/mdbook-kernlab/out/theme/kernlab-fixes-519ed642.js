// Repairs to mdBook's page that run after book.js (theme/head.hbs has the ones that must
// run before it).
(function () {
  'use strict';
  // theme/head.hbs turned the sidebar toggle into a <button>: clicking it toggles the hidden
  // checkbox the <label> toggled, after book.js's own click handler has prepared the sidebar.
  var toggle = document.getElementById('mdbook-sidebar-toggle');
  var checkbox = document.getElementById('mdbook-sidebar-toggle-anchor');
  if (toggle && checkbox && toggle.tagName === 'BUTTON') {
    toggle.addEventListener('click', function () {
      checkbox.click();
    });
  }
})();
