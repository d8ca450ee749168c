// Filters the report's items by verdict, level and rule; no dependencies.
(function () {
  "use strict";
  const form = document.getElementById("filters");
  const rule = document.getElementById("rule-filter");
  const shown = document.getElementById("shown");
  const items = Array.from(document.querySelectorAll(".item"));
  function checked(kind) {
    return new Set(Array.from(form.querySelectorAll('input[data-filter="' + kind + '"]:checked'), (i) => i.value));
  }
  function apply() {
    const verdicts = checked("verdict"), levels = checked("level");
    const hasLevels = form.querySelector('input[data-filter="level"]') !== null;
    const r = rule.value.trim().toUpperCase();
    const unselected = document.getElementById("show-unselected");
    const showUnselected = !unselected || unselected.checked;
    let n = 0;
    for (const it of items) {
      const ids = (it.dataset.rules || "").split(" ");
      const ok = (showUnselected || !it.dataset.unselected) && verdicts.has(it.dataset.verdict) && (!hasLevels || levels.has(it.dataset.level)) &&
        (!r || ids.some((id) => id === r || (r.endsWith("-") && id.startsWith(r))));
      it.hidden = !ok;
      if (ok) n++;
    }
    shown.textContent = n + " of " + items.length + " shown";
  }
  form.addEventListener("input", apply);
  form.addEventListener("submit", (e) => e.preventDefault());
  apply();
})();
