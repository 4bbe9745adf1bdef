// Small repairs to mdBook's default page, found by the Lighthouse audit.
(function () {
  'use strict';
  // An (empty) unload handler keeps every page out of the browser's back/forward cache.
  if (window.onunload) {
    window.onunload = null;
  }
  // The sidebar toggle is a <label> carrying button ARIA attributes: give it the button role
  // those attributes belong to.
  var toggle = document.getElementById('mdbook-sidebar-toggle');
  if (toggle && !toggle.hasAttribute('role')) {
    toggle.setAttribute('role', 'button');
  }
})();
