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

  // A code block, log, table or heat map wider than its column scrolls sideways in its own
  // box, and a phone shows no scroll bar until the box is touched: a line under each such
  // box says so. Boxes are checked whenever their size changes (a figure off screen is laid
  // out only when it comes near the viewport), so the line follows a turned phone too.
  var boxes = document.querySelectorAll('pre, pre > code, .kl-log, .kl-table-wrap, .table-wrapper, .kl-chart-wrap');
  var scrolls = function (e) {
    return e.scrollWidth > e.clientWidth + 1 && /auto|scroll/.test(getComputedStyle(e).overflowX);
  };
  var check = function (box) {
    var outer = box.tagName === 'CODE' ? box.parentElement : box;
    var wide = scrolls(outer) || Array.prototype.some.call(outer.querySelectorAll(':scope > code'), scrolls);
    var next = outer.nextElementSibling;
    var shown = next && next.classList.contains('kl-scroll-hint');
    if (wide && !shown) {
      var line = document.createElement('div');
      line.className = 'kl-scroll-hint';
      line.setAttribute('aria-hidden', 'true');
      line.textContent = 'wider than the screen: swipe the box sideways \u2192';
      outer.after(line);
    } else if (!wide && shown) {
      next.remove();
    }
  };
  if ('ResizeObserver' in window) {
    var observer = new ResizeObserver(function (entries) {
      entries.forEach(function (entry) { check(entry.target); });
    });
    boxes.forEach(function (box) { observer.observe(box); });
  }
})();
