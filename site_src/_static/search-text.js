// The site's search: a result's snippet is the page's text, where a formula is still its TeX source
// (\(E[d_H] = 64\,\theta/\pi\), a folded answer's $\binom{6}{3}$). This reads each formula as
// text before Sphinx's searchtools cuts the snippet: E[d_H] = 64 θ/π, C(6, 3).
"use strict";

(() => {
  const SYMBOLS = {
    theta: "θ", pi: "π", rho: "ρ", alpha: "α", beta: "β", sigma: "σ", mu: "μ", lambda: "λ",
    le: "≤", leq: "≤", ge: "≥", geq: "≥", ne: "≠", neq: "≠", approx: "≈", sim: "∼", times: "×",
    cdot: "·", oplus: "⊕", in: "∈", infty: "∞", sum: "Σ", mapsto: "↦", implies: "⟹", to: "→",
    propto: "∝", ldots: "…", dots: "…", cdots: "…", lvert: "|", rvert: "|", cap: "∩", cup: "∪",
    Rightarrow: "⇒", log: "log", ln: "ln", cos: "cos", arccos: "arccos", min: "min", max: "max",
  };

  const wrap = (x) => (/[\s+\-*/]/.test(x.trim()) ? `(${x.trim()})` : x.trim());

  // One formula's TeX as plain text.
  const texToText = (tex) => {
    let s = tex;
    for (let i = 0; i < 3; i++) {  // nested groups, from the inside out
      s = s
        .replace(/\\(?:d?frac)\{([^{}]*)\}\{([^{}]*)\}/g, (m, a, b) => `${wrap(a)}/${wrap(b)}`)
        .replace(/\\binom\{([^{}]*)\}\{([^{}]*)\}/g, "C($1, $2)")
        .replace(/\\sqrt\{([^{}]*)\}/g, "√($1)")
        .replace(/\\(?:mathrm|text|mathbf|mathit|operatorname|vec|bar|hat)\{([^{}]*)\}/g, "$1");
    }
    return s
      .replace(/\\([A-Za-z]+)/g, (m, name) => (name in SYMBOLS ? SYMBOLS[name] : ""))
      .replace(/\\[,;:!]|\\quad|\\qquad|~/g, " ")
      .replace(/\\([{}$%#&_])/g, "$1")
      .replace(/[{}]/g, "")
      .replace(/\s+/g, " ")
      .trim();
  };

  // A page's HTML with every formula (MathJax's \(...\) and \[...\], and $...$ in raw HTML) as text.
  const readableMath = (htmlString) => {
    const doc = new DOMParser().parseFromString(htmlString, "text/html");
    doc.querySelectorAll(".math").forEach((el) => {
      const tex = el.textContent.replace(/^\s*\\[([]/, "").replace(/\\[)\]]\s*$/, "");
      el.textContent = texToText(tex);
    });
    const walker = doc.createTreeWalker(doc.body, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      if (node.nodeValue.includes("$")) {
        node.nodeValue = node.nodeValue.replace(/\$\$?([^$]+)\$\$?/g, (m, tex) => texToText(tex));
      }
    }
    return doc.documentElement.outerHTML;
  };

  const patch = () => {
    if (typeof Search === "undefined" || Search.__readableMath) return;
    const htmlToText = Search.htmlToText;
    Search.htmlToText = (htmlString, anchor) => htmlToText(readableMath(htmlString), anchor);
    Search.__readableMath = true;
  };
  patch();
  document.addEventListener("DOMContentLoaded", patch);
  window.simhashLabTexToText = texToText;  // for the site's tests
})();
